// reglab snapshot save|list|rm, reglab reset and reglab up --from-snapshot as users run them
// (bin/reglab.js over the build), on a small lab: btcd and two lnd nodes with a channel.
// Its own lab, in a folder of its own: it saves snapshots, resets the lab to them and takes it
// down.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reglabIn } from '../support/cli.js';

describe('reglab snapshot commands', () => {
  let home: string;
  const reglab = reglabIn(() => home);
  const status = async () => JSON.parse((await reglab('--json', 'status')).stdout);
  const channelBalances = (lab: { nodes: { name: string; channelBalanceSat: number }[] }) =>
    Object.fromEntries(lab.nodes.map((node) => [node.name, node.channelBalanceSat]));

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'reglab-snapshot-cli-'));
    chmodSync(home, 0o755);
    writeFileSync(
      join(home, 'lab.yaml'),
      'name: snapcli\nindexer:\n  enabled: false\nnodes:\n  - name: alice\n  - name: bob\nchannels:\n  - from: alice\n    to: bob\n    capacity_sat: 500000\n',
    );
    const up = await reglab('up');
    if (up.code !== 0) throw new Error(`reglab up failed: ${up.stdout}${up.stderr}`);
  });
  afterAll(async () => {
    await reglab('down');
    rmSync(home, { recursive: true, force: true });
  });

  it('reset of a lab that has no snapshot says so and exits 3', async () => {
    const result = await reglab('reset');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('was not brought up from a snapshot');
  });

  it('snapshot save, list, then reset back to it after a payment', async () => {
    const before = await status();
    const saved = await reglab('snapshot', 'save', 'base');
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`lab snapcli saved as snapshot base`);
    const listed = JSON.parse((await reglab('--json', 'snapshot', 'list')).stdout);
    expect(listed.snapshots).toMatchObject([
      { name: 'base', lab: 'snapcli', runtime: 'process', height: before.chain.height },
    ]);

    expect((await reglab('pay', 'alice', 'bob', '1500')).code).toBe(0);
    expect(channelBalances(await status())).not.toEqual(channelBalances(before));
    const reset = await reglab('reset');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/lab snapcli reset to snapshot base in [\d.]+s/);
    const after = await status();
    expect(after.status).toBe('ready');
    expect(channelBalances(after)).toEqual(channelBalances(before));
    expect(after.chain.height).toBe(before.chain.height);
  });

  it('up --from-snapshot brings the saved lab back after down', async () => {
    expect((await reglab('down')).code).toBe(0);
    const up = await reglab('up', '--from-snapshot', 'base');
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain('bringing lab snapcli up from snapshot base');
    expect(up.stdout).toContain('lab snapcli: ready');
    expect((await reglab('pay', 'alice', 'bob', '1000')).code).toBe(0);
  });

  it('refuses bad names and unknown snapshots with exit codes 2 and 3, and removes one', async () => {
    expect((await reglab('snapshot', 'save', 'Not/A/Name')).code).toBe(2);
    expect((await reglab('snapshot', 'rm', 'nope')).code).toBe(3);
    expect((await reglab('up', '--from-snapshot', 'nope')).code).toBe(3);
    const removed = await reglab('snapshot', 'rm', 'base');
    expect(removed.code).toBe(0);
    expect((await reglab('snapshot', 'list')).stdout).toContain('no snapshots');
  });
});
