import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reglabIn } from '../support/cli.js';
import { isListening } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';

describe('reglab CLI', () => {
  let home: string;
  const reglab = reglabIn(() => home);

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'reglab-cli-'));
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'lab.yaml'), 'name: cli\nindexer:\n  enabled: false\nnodes:\n  - name: alice\n  - name: bob\n  - name: carol\nchannels:\n  - from: alice\n    to: bob\n    capacity_sat: 500000\n  - from: bob\n    to: carol\n    capacity_sat: 500000\n');
    writeFileSync(join(home, 'broken.yaml'), 'name: cli\nnodes:\n  - name: alice\n    fundng_sat: 5\n');
  });
  afterAll(async () => {
    await reglab('down');
    rmSync(home, { recursive: true, force: true });
  });

  it('--version prints the version of package.json', async () => {
    const result = await reglab('--version');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(JSON.parse(readFileSync(resolve('package.json'), 'utf8')).version);
  });

  it('validate points at the broken line and exits 2', async () => {
    const result = await reglab('validate', '-f', 'broken.yaml');
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('broken.yaml:4:5: nodes[0].fundng_sat: unknown key "fundng_sat"');
  });

  it('up prints each service as it becomes ready, then a summary', async () => {
    const result = await reglab('up');
    expect(result.code, result.stderr).toBe(0);
    for (const service of ['chain', 'alice', 'bob', 'carol']) expect(result.stdout).toMatch(new RegExp(`✓ ${service} ready`));
    expect(result.stdout).toContain('lab cli: ready');
  });

  it('mine 10 raises the height by exactly 10', async () => {
    const before = JSON.parse((await reglab('--json', 'status')).stdout).chain.height;
    const result = await reglab('mine', '10');
    expect(result.code).toBe(0);
    const after = JSON.parse((await reglab('--json', 'status')).stdout).chain.height;
    expect(after).toBe(before + 10);
  });

  it('pay moves sats alice -> bob -> carol over the channels', async () => {
    const result = await reglab('--json', 'pay', 'alice', 'carol', '1500');
    expect(result.code).toBe(0);
    const job = JSON.parse(result.stdout);
    expect(job.result).toMatchObject({ amountSat: 1500, hops: 2 });
    // carol's side of the channel settles a moment after alice's payment returns
    await waitFor(async () => {
      const status = JSON.parse((await reglab('--json', 'status')).stdout);
      return status.nodes.find((node: { name: string }) => node.name === 'carol').channelBalanceSat === 1500;
    }, { timeoutMs: 15_000, what: "carol's channel balance to show the 1500 sat" });
  });

  it('runs a scenario file with a pass/fail report', async () => {
    const result = await reglab('--json', 'scenario', 'run', resolve('scenarios/alice-to-carol.yaml'));
    const report = JSON.parse(result.stdout);
    expect(report.steps.filter((step: { passed: boolean }) => !step.passed)).toEqual([]);
    expect(result.code).toBe(0);
    expect(report.passed).toBe(true);
  });

  it('a failing scenario stops at the failing step and exits 1', async () => {
    writeFileSync(join(home, 'failing.yaml'), 'name: too much\nsteps:\n  - expect: { node: carol, channel_balance_sat: { at_least: 999999999 } }\n  - mine: { blocks: 1 }\n');
    const result = await reglab('scenario', 'run', 'failing.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ 1. expect');
    expect(result.stdout).toContain('0 passed, 1 failed');
    writeFileSync(join(home, 'invalid.yaml'), 'name: x\nsteps:\n  - teleport: { to: mars }\n');
    expect((await reglab('scenario', 'run', 'invalid.yaml')).code).toBe(2);
  });

  it('stop and start a node: status exits 1 while it is stopped, a payment to it fails with how to bring it back', async () => {
    expect((await reglab('stop', 'carol')).stdout).toContain('carol stopped');
    const status = await reglab('status');
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/carol\s+lnd\s+stopped/);
    const refused = await reglab('pay', 'alice', 'carol', '1000');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('carol is stopped: start it with `reglab start carol`');
    expect((await reglab('start', 'carol')).stdout).toContain('carol ready');
    expect((await reglab('pay', 'alice', 'carol', '1000')).code).toBe(0);
    expect((await reglab('status')).code).toBe(0);
  });

  it('kill is a crash the supervisor restarts; open prints the dashboard', async () => {
    const killed = await reglab('kill', 'bob');
    expect(killed.code).toBe(0);
    // the kill is seen as the crash it is before the command answers (not "bob ready")
    expect(killed.stdout).toBe('bob restarting\n');
    const back = await waitFor(async () => {
      const status = JSON.parse((await reglab('--json', 'status')).stdout);
      const bob = status.services.find((service: { name: string }) => service.name === 'bob');
      return bob.status === 'ready' && bob;
    }, { timeoutMs: 60_000, intervalMs: 500, what: 'bob restarted by the supervisor' });
    expect(back.restarts).toBe(1);
    expect((await reglab('open')).stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\n$/);
  });

  it('exit codes tell scripts what went wrong', async () => {
    expect((await reglab('pay', 'alice', 'nobody', '10')).code).toBe(2);
    expect((await reglab('mine', 'ten')).code).toBe(2);
    expect((await reglab('up')).code).toBe(3);
  });

  it('down leaves no process and no port', async () => {
    const status = JSON.parse((await reglab('--json', 'status')).stdout);
    const ports: number[] = status.services.flatMap((service: { ports: Record<string, number> }) => Object.values(service.ports));
    const result = await reglab('down');
    expect(result.code).toBe(0);
    for (const port of ports) expect(await isListening(port)).toBe(false);
    expect((await reglab('status')).code).toBe(3);
  });
});
