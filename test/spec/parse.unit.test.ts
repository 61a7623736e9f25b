import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { labSpecProblems } from './refusal.js';

const problemsOf = (text: string) => labSpecProblems(text, 'broken.yaml');

describe('lab.yaml', () => {
  it('accepts the default lab and fills defaults', () => {
    const lab = parseLabSpec(readFileSync('lab.yaml', 'utf8'));
    expect(lab.name).toBe('default');
    expect(lab.nodes.map((node) => node.name)).toEqual(['alice', 'bob', 'carol']);
    expect(lab.channels).toHaveLength(2);
    expect(lab.postgres).toEqual({ managed: true });
    expect(lab.mining.initial_blocks).toBe(432);
  });

  it("runs without network faults unless lab.yaml asks for them, and keeps the proxy's name for it", () => {
    expect(parseLabSpec('name: x\n').network).toEqual({ faults: false });
    expect(parseLabSpec('name: x\nnetwork: { faults: true }\n').network).toEqual({ faults: true });
    expect(problemsOf('name: x\nnetwork: { faults: yes please }\n')[0]).toMatchObject({ path: 'network.faults' });
    const [problem] = problemsOf('name: x\nnodes:\n  - name: toxiproxy\n');
    expect(problem).toMatchObject({ line: 3, path: 'nodes[0].name' });
    expect(problem.message).toContain('the name of a lab service');
  });

  it('gives a start 90 s to be ready unless supervision.start_timeout_seconds says otherwise, within 1 to 3600', () => {
    expect(parseLabSpec('name: x\n').supervision.start_timeout_seconds).toBe(90);
    expect(
      parseLabSpec('name: x\nsupervision: { start_timeout_seconds: 20 }\n').supervision.start_timeout_seconds,
    ).toBe(20);
    for (const [value, message] of [
      ['0', 'must be >= 1'],
      ['3601', 'must be <= 3600'],
    ])
      expect(problemsOf(`name: x\nsupervision:\n  start_timeout_seconds: ${value}\n`)[0]).toMatchObject({
        line: 3,
        path: 'supervision.start_timeout_seconds',
        message,
      });
  });

  it('gives status 0.75 s for each answer unless status.answer_timeout_seconds says otherwise, within 0.1 to 60', () => {
    expect(parseLabSpec('name: x\n').status).toEqual({ answer_timeout_seconds: 0.75 });
    expect(parseLabSpec('name: x\nstatus: { answer_timeout_seconds: 5 }\n').status.answer_timeout_seconds).toBe(5);
    for (const [value, message] of [
      ['0.05', 'must be >= 0.1'],
      ['61', 'must be <= 60'],
      ['.inf', 'must be <= 60'],
      ['soon', 'must be number'],
    ])
      expect(problemsOf(`name: x\nstatus:\n  answer_timeout_seconds: ${value}\n`)[0]).toMatchObject({
        line: 3,
        path: 'status.answer_timeout_seconds',
        message,
      });
  });

  it('points at the line of an unknown key', () => {
    const [problem] = problemsOf('name: x\nnodes:\n  - name: a\n    colour: red\n');
    expect(problem).toMatchObject({ file: 'broken.yaml', line: 4, path: 'nodes[0].colour' });
    expect(problem.message).toContain('unknown key "colour"');
  });

  it('points at a wrong type', () => {
    const [problem] = problemsOf('name: x\nnodes:\n  - name: a\n    funding_sat: lots\n');
    expect(problem).toMatchObject({ line: 4, path: 'nodes[0].funding_sat' });
    expect(problem.message).toContain('integer');
  });

  it('refuses a number too large for its setting, Infinity included, each on its line', () => {
    const problems = problemsOf(
      [
        'name: x',
        'nodes:',
        '  - { name: a, funding_sat: 99999999999999999999999 }',
        '  - { name: b, funding_sat: .inf }',
        'channels:',
        '  - { from: a, to: b, capacity_sat: 1e400, push_sat: 1e400 }',
        'services:',
        '  faucet: { node: a, claim_sat: 1e300, cooldown_seconds: 1e12 }',
        'mining: { initial_blocks: 1000000000, auto_mine_seconds: 2147484 }',
        'supervision: { window_seconds: .inf }',
        '',
      ].join('\n'),
    );
    expect(problems.map(({ line, path, message }) => ({ line, path, message }))).toEqual([
      { line: 3, path: 'nodes[0].funding_sat', message: 'must be <= 2100000000000000' },
      { line: 4, path: 'nodes[1].funding_sat', message: 'must be <= 2100000000000000' },
      { line: 6, path: 'channels[0].capacity_sat', message: 'must be <= 2100000000000000' },
      { line: 6, path: 'channels[0].push_sat', message: 'must be <= 2100000000000000' },
      { line: 8, path: 'services.faucet.claim_sat', message: 'must be <= 2100000000000000' },
      { line: 8, path: 'services.faucet.cooldown_seconds', message: 'must be <= 86400' },
      { line: 9, path: 'mining.initial_blocks', message: 'must be <= 10000' },
      { line: 9, path: 'mining.auto_mine_seconds', message: 'must be <= 86400' },
      { line: 10, path: 'supervision.window_seconds', message: 'must be <= 86400' },
    ]);
  });

  it('rejects a channel to a node that does not exist, on its line', () => {
    const problems = problemsOf(
      'name: x\nnodes:\n  - name: a\n  - name: b\nchannels:\n  - from: a\n    to: zed\n    capacity_sat: 100000\n',
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 7, path: 'channels[0].to' });
    expect(problems[0].message).toContain('no node named "zed"');
  });

  it('rejects duplicate node names', () => {
    const [problem] = problemsOf('name: x\nnodes:\n  - name: a\n  - name: a\n');
    expect(problem).toMatchObject({ line: 4, path: 'nodes[1].name' });
    expect(problem.message).toContain('duplicate');
  });

  it('rejects two services on one port', () => {
    const [problem] = problemsOf(
      'name: x\nnodes:\n  - name: a\nservices:\n  faucet:\n    node: a\n    port: 9000\n  chain-adapter:\n    port: 9000\n',
    );
    expect(problem).toMatchObject({ line: 9, path: 'services.chain-adapter.port' });
    expect(problem.message).toContain('already taken by faucet');
  });

  it('reports YAML syntax errors with their line', () => {
    const [problem] = problemsOf('name: x\nnodes: [a\n');
    expect(problem.line).toBeGreaterThanOrEqual(2);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf('name: X\nruntime: vm\n');
    expect(problems.map((p) => p.path).sort()).toEqual(['name', 'runtime']);
  });

  it('refuses bitcoind, which the planner does not launch yet', () => {
    expect(problemsOf('name: x\nchain:\n  kind: bitcoind\n')[0]).toMatchObject({
      line: 3,
      path: 'chain.kind',
      message: expect.stringContaining('use btcd'),
    });
  });

  it('keeps rln nodes to what the lab can run: a container runtime, an indexer, no lab.yaml channels', () => {
    expect(problemsOf('name: x\nnodes:\n  - name: r\n    kind: rln\n')[0]).toMatchObject({
      line: 4,
      message: expect.stringContaining('set runtime: docker or kubernetes'),
    });
    expect(
      problemsOf('name: x\nruntime: docker\nindexer:\n  enabled: false\nnodes:\n  - name: r\n    kind: rln\n')[0]
        .message,
    ).toContain('indexer');
    const [channel] = problemsOf(
      'name: x\nruntime: docker\nnodes:\n  - name: a\n  - name: r\n    kind: rln\nchannels:\n  - from: a\n    to: r\n    capacity_sat: 100000\n',
    );
    expect(channel).toMatchObject({ path: 'channels[0].to', message: expect.stringContaining("RLN's API") });
  });

  it('accepts the mixed lab of docs/examples: an ldk node between two lnd nodes, with channels', () => {
    const lab = parseLabSpec(readFileSync('docs/examples/mixed-lab.yaml', 'utf8'));
    expect(lab.nodes.map((node) => [node.name, node.kind, node.chain_source])).toEqual([
      ['alice', 'lnd', undefined],
      ['bob', 'ldk', 'electrum'],
      ['carol', 'lnd', undefined],
    ]);
    expect(lab.channels.map((channel) => `${channel.from}->${channel.to}`)).toEqual(['alice->bob', 'bob->carol']);
  });

  it("keeps an ldk node's chain source to one the lab runs, on its line", () => {
    const ldk = (lines: string) => `name: x\n${lines}nodes:\n  - name: l\n    kind: ldk\n`;
    expect(() => parseLabSpec(ldk(''))).not.toThrow();
    expect(problemsOf(ldk('indexer:\n  enabled: false\n'))[0]).toMatchObject({
      line: 6,
      path: 'nodes[0].kind',
      message: expect.stringContaining('chain_source: esplora'),
    });
    expect(problemsOf(`${ldk('')}    chain_source: esplora\n`)[0]).toMatchObject({
      line: 5,
      path: 'nodes[0].chain_source',
      message: expect.stringContaining('services: { chain-adapter: {} }'),
    });
    expect(() => parseLabSpec(`${ldk('services:\n  chain-adapter: {}\n')}    chain_source: esplora\n`)).not.toThrow();
    expect(problemsOf(`${ldk('')}    chain_source: bitcoind\n`)[0]).toMatchObject({
      line: 5,
      path: 'nodes[0].chain_source',
    });
    expect(problemsOf('name: x\nnodes:\n  - name: a\n    chain_source: electrum\n')[0]).toMatchObject({
      line: 4,
      path: 'nodes[0].chain_source',
      message: expect.stringContaining('a setting of ldk nodes'),
    });
  });

  it('takes the failed chain checks after which an lnd node gives up on its chain, on lnd nodes only', () => {
    expect(parseLabSpec('name: x\nnodes:\n  - name: a\n').nodes[0].chain_check_attempts).toBeUndefined();
    expect(
      parseLabSpec('name: x\nnodes:\n  - name: a\n    chain_check_attempts: 0\n').nodes[0].chain_check_attempts,
    ).toBe(0);
    expect(problemsOf('name: x\nnodes:\n  - name: a\n    chain_check_attempts: -1\n')[0]).toMatchObject({
      line: 4,
      path: 'nodes[0].chain_check_attempts',
      message: 'must be >= 0',
    });
    expect(problemsOf('name: x\nnodes:\n  - name: l\n    kind: ldk\n    chain_check_attempts: 1\n')[0]).toMatchObject({
      line: 5,
      path: 'nodes[0].chain_check_attempts',
      message: expect.stringContaining('a setting of lnd nodes'),
    });
  });

  it("takes a fee policy: 1 sat/vB fixed by default, another fixed rate, or the chain node's estimates", () => {
    expect(parseLabSpec('name: x\n').fees).toEqual({ policy: 'fixed', sat_per_vbyte: 1 });
    expect(parseLabSpec('name: x\nfees:\n  sat_per_vbyte: 25\n').fees).toEqual({ policy: 'fixed', sat_per_vbyte: 25 });
    expect(parseLabSpec('name: x\nfees:\n  policy: node\n').fees).toEqual({ policy: 'node' });
  });

  it('refuses a fee policy it does not know, a rate that is not a whole number from 1 to 1000, and a rate with policy node, on its line', () => {
    expect(problemsOf('name: x\nfees:\n  policy: market\n')[0]).toMatchObject({ line: 3, path: 'fees.policy' });
    for (const rate of ['0', '1001', '2.5', 'cheap'])
      expect(problemsOf(`name: x\nfees:\n  sat_per_vbyte: ${rate}\n`)[0], rate).toMatchObject({
        line: 3,
        path: 'fees.sat_per_vbyte',
      });
    expect(problemsOf('name: x\nfees:\n  policy: node\n  sat_per_vbyte: 5\n')[0]).toMatchObject({
      line: 4,
      path: 'fees.sat_per_vbyte',
      message: expect.stringContaining('rate of the fixed policy'),
    });
    expect(problemsOf('name: x\nfees:\n  rate: 5\n')[0]).toMatchObject({ line: 3, path: 'fees.rate' });
  });

  it("asks each kind's rules of its nodes and lab services, each refusal on its line", () => {
    const lab = (lines: string) =>
      `name: x\nnodes:\n  - name: a\n  - name: w\n    kind: rgb\n  - name: l\n    kind: ldk\n${lines}`;
    expect(problemsOf(lab('channels:\n  - from: a\n    to: w\n    capacity_sat: 100000\n'))).toEqual([
      expect.objectContaining({ line: 10, path: 'channels[0].to', message: expect.stringContaining('rgb nodes') }),
    ]);
    expect(problemsOf(lab('services:\n  wallet-server:\n    node: w\n'))).toEqual([
      expect.objectContaining({
        line: 10,
        path: 'services.wallet-server.node',
        message: 'the wallet server needs a Lightning node (lnd, ldk or rln); rgb nodes have no Lightning side',
      }),
    ]);
    expect(problemsOf(lab('services:\n  faucet:\n    node: l\n'))).toEqual([
      expect.objectContaining({
        line: 10,
        path: 'services.faucet.node',
        message: 'the faucet sends from an lnd node wallet',
      }),
    ]);
    expect(
      problemsOf('name: x\nindexer:\n  enabled: false\nservices:\n  chain-adapter: {}\n').map(({ path }) => path),
    ).toEqual(['services.chain-adapter']);
  });
});
