// A workshop through the CLI, on the process runtime: `up --copies` brings the labs up at once,
// `list --csv` hands out each lab's dashboard and own token, `down --prefix` takes them all down.
// (The control plane stays on loopback here, where no token is asked; what a lab's token grants on
// one open to the network: lab-tokens.unit.test.ts.)
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reglabIn } from '../support/cli.js';

describe('reglab up --copies, list, down --prefix', () => {
  let home: string;
  const reglab = reglabIn(() => home);

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'reglab-workshop-'));
    chmodSync(home, 0o755);
    // a lab of its chain node only: the copies, not the services, are what is tested
    writeFileSync(join(home, 'lab.yaml'), '# one per attendee\nname: lesson\nindexer:\n  enabled: false\n');
  });
  afterAll(async () => {
    await reglab('down', '--all');
    rmSync(home, { recursive: true, force: true });
  });

  it('brings up every copy, each ready under its own name', async () => {
    const result = await reglab('up', '--copies', '3', '--name-prefix', 'attendee-');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    for (const name of ['attendee-1', 'attendee-2', 'attendee-3'])
      expect(result.stdout).toMatch(new RegExp(`^${name} ready after`, 'm'));
    expect(result.stdout).toContain('3 labs ready');
  });

  it('lists each lab with its dashboard and its own token, as CSV', async () => {
    const result = await reglab('list', '--prefix', 'attendee-', '--csv');
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = result.stdout.trim().split('\n');
    expect(header).toBe('lab,status,dashboard,token,wallet_server,faucet,chain_adapter');
    expect(rows.map((row) => row.split(',').slice(0, 2).join(','))).toEqual([
      'attendee-1,ready',
      'attendee-2,ready',
      'attendee-3,ready',
    ]);
    const tokens = rows.map((row) => row.split(',')[3]);
    expect(new Set(tokens).size).toBe(3);
    for (const [index, row] of rows.entries())
      expect(row.split(',')[2]).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:\\d+/\\?lab=attendee-${index + 1}#token=${tokens[index]}$`),
      );
  });

  it('--host puts the address the room reaches this machine at in the URLs', async () => {
    const result = await reglab('--json', 'list', '--prefix', 'attendee-', '--host', '192.0.2.10');
    expect(result.code, result.stderr).toBe(0);
    const { labs } = JSON.parse(result.stdout);
    expect(labs.map((lab: { dashboard: string }) => new URL(lab.dashboard).hostname)).toEqual([
      '192.0.2.10',
      '192.0.2.10',
      '192.0.2.10',
    ]);
  });

  it("a lab's token is its own dashboard's: the page shows that lab", async () => {
    const rows = (await reglab('list', '--prefix', 'attendee-', '--csv')).stdout.trim().split('\n').slice(1);
    const dashboard = new URL(rows[1].split(',')[2]);
    expect(dashboard.searchParams.get('lab')).toBe('attendee-2');
    const page = await fetch(`${dashboard.origin}/`);
    expect(page.status).toBe(200);
    const access = await fetch(`${dashboard.origin}/access?lab=attendee-2`, {
      headers: { authorization: `Bearer ${rows[1].split(',')[3]}` },
    });
    expect(await access.json()).toEqual({ tokenRequired: false, authorized: true });
  });

  it('takes every copy down with one command', async () => {
    const result = await reglab('down', '--prefix', 'attendee-');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').sort()).toEqual([
      'lab attendee-1 is down',
      'lab attendee-2 is down',
      'lab attendee-3 is down',
    ]);
    const after = await reglab('list');
    expect(after.stdout + after.stderr).toContain('no lab is up');
  });
});
