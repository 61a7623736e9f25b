// `reglab mcp` driven by the MCP SDK's own client over stdio, as an AI agent's host runs it: the
// tools it lists with their schemas, status, mine, pay, a scenario, and the control plane's
// refusals as tool errors. On the shared default-shaped lab (test/support/shared-lab.ts): it mines
// and pays over its channels.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { CLI } from '../support/cli.js';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';

type ToolAnswer = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('reglab mcp', () => {
  let lab: SharedLab;
  let client: Client;
  let folder: string;
  let stderr = '';
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;
  const done = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await call(name, args);
    expect(answer.isError, answer.content[0]?.text).toBeFalsy();
    return answer;
  };
  const height = async () => (await lab.call('GET', `/labs/${lab.name}`)).body.chain.height as number;

  beforeAll(async () => {
    lab = await sharedLab();
    folder = mkdtempSync(join(tmpdir(), 'reglab-mcp-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      cwd: folder,
      env: { ...(process.env as Record<string, string>), REGLAB_HOME: lab.home },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: 'reglab-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists the lab operations as tools, each with the JSON schema of its arguments', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['status', 'mine', 'fund', 'pay', 'channel_open', 'channel_close', 'kill', 'stop', 'start'])
      expect(names).toContain(name);
    for (const name of ['restart', 'logs', 'scenario_run', 'connect_info', 'labs', 'net_partition', 'net_heal'])
      expect(names).toContain(name);
    const pay = tools.find((tool) => tool.name === 'pay')!;
    expect(pay.description).toContain('keysend');
    expect(pay.inputSchema).toMatchObject({
      type: 'object',
      required: ['from'],
      additionalProperties: false,
      properties: { from: { type: 'string' }, amount_sat: { type: 'integer' }, lab: { type: 'string' } },
    });
  });

  it('answers status with the lab as the control plane shows it', async () => {
    const { structuredContent: status, content } = await done('status');
    expect(status.name).toBe(lab.name);
    expect(status.nodes.map((node: { name: string }) => node.name)).toEqual(['alice', 'bob', 'carol']);
    expect(JSON.parse(content[0].text)).toEqual(status);
  });

  it('mines blocks and pays over the lab channels, answering when each job has ended', async () => {
    const before = await height();
    const mined = await done('mine', { blocks: 2 });
    expect(mined.structuredContent.height).toBe(before + 2);
    expect(await height()).toBe(before + 2);

    const carolBefore = (await lab.call('GET', `/labs/${lab.name}/nodes/carol`)).body.channelBalanceSat as number;
    const paid = await done('pay', { from: 'alice', to: 'carol', amount_sat: 1_234 });
    expect(paid.structuredContent).toMatchObject({ amountSat: 1_234, hops: 2 });
    expect(paid.structuredContent.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    // carol's side of the channel moves once her node has settled the payment, a moment after alice's answer
    await waitFor(
      async () =>
        (await lab.call('GET', `/labs/${lab.name}/nodes/carol`)).body.channelBalanceSat - carolBefore === 1_234,
      { timeoutMs: 20_000, what: "carol's channel balance to grow by 1234 sat" },
    );
  });

  it("gives the control plane's refusals, and a failed payment's reason, as tool errors", async () => {
    const unknown = await call('pay', { from: 'alice', to: 'zed', amount_sat: 1 });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toBe(`NO_SUCH_NODE: lab ${lab.name} has no node "zed" (nodes: alice, bob, carol)`);
    const tooMuch = await call('pay', { from: 'alice', to: 'carol', amount_sat: 9_000_000 });
    expect(tooMuch.isError).toBe(true);
    expect(tooMuch.content[0].text).toMatch(/^JOB_FAILED: job payments-\S+ failed: /);
    const badArguments = await call('mine', { blocks: 'many' });
    expect(badArguments.isError).toBe(true);
    expect(badArguments.content[0].text).toContain('expected number, received string at blocks');
    // the shared lab's links go straight from node to node
    const partition = await call('net_partition', { a: 'carol' });
    expect(partition.isError).toBe(true);
    expect(partition.content[0].text).toMatch(/^NETWORK_FAULTS_OFF: lab \S+ runs without network faults/);
    const noLab = await call('status', { lab: 'nolab' });
    expect(noLab.content[0].text).toMatch(/^NO_SUCH_LAB: no lab named "nolab"/);
  });

  it('runs a scenario file and answers its outcome with its figures', async () => {
    writeFileSync(
      join(folder, 'pay.yaml'),
      'name: one payment\nsteps:\n  - pay: { from: alice, to: carol, amount_sat: 500 }\n  - mine: { blocks: 1 }\n',
    );
    const run = await done('scenario_run', { paths: ['pay.yaml'], junit: 'out/junit.xml' });
    expect(run.structuredContent).toMatchObject({
      passed: true,
      scenarios: [{ scenario: 'one payment', passed: true, figures: { payments: { count: 1, succeeded: 1 } } }],
    });
    expect(run.structuredContent.console).toContain('✓ 1. pay');
    const missing = await call('scenario_run', { paths: ['nope.yaml'] });
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toContain('nope.yaml: no such file or folder');
  });

  it("reads a service's log", async () => {
    const log = await done('logs', { service: 'wallet-server', lines: 5 });
    expect(log.content[0].text.split('\n').filter(Boolean).length).toBeGreaterThan(0);
    expect(log.structuredContent).toBeUndefined();
    expect(stderr).not.toContain('Error');
  });

  it('runs a defined flow of payment activity, reads its status and its payments, and stops it', async () => {
    const started = await done('activity_start', {
      flows: [{ from: 'alice', to: 'carol', amount_sat: 700, interval_seconds: 0.2, count: 3 }],
    });
    expect(started.structuredContent).toMatchObject({ running: true, plan: { flows: [{ from: 'alice', count: 3 }] } });
    await waitFor(
      async () =>
        (await done('activity_status')).structuredContent.inFlight === 0 &&
        !(await done('activity_status')).structuredContent.running,
      {
        timeoutMs: 60_000,
        what: 'the flow to end',
      },
    );
    const payments = (await done('activity_payments')).structuredContent.payments as {
      outcome: string;
      amountSat: number;
    }[];
    expect(payments.map((payment) => [payment.outcome, payment.amountSat])).toEqual([
      ['succeeded', 700],
      ['succeeded', 700],
      ['succeeded', 700],
    ]);
    const stopped = await done('activity_stop');
    expect(stopped.structuredContent).toMatchObject({
      running: false,
      succeeded: 3,
      stopReason: 'every flow sent its payments',
    });
    const refused = await call('activity_start', {
      flows: [{ from: 'alice', to: 'alice', amount_sat: 1, interval_seconds: 1 }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toBe('INVALID_ACTIVITY: flows.0.to: a flow needs two different nodes');
  });
});
