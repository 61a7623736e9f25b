// Its own lab, in a folder of its own, as users run the CLI: it stops, starts and kills nodes,
// kills the control plane and its keeper, and takes the lab down.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
    writeFileSync(
      join(home, 'lab.yaml'),
      'name: cli\nindexer:\n  enabled: false\nnodes:\n  - name: alice\n  - name: bob\n  - name: carol\nchannels:\n  - from: alice\n    to: bob\n    capacity_sat: 500000\n  - from: bob\n    to: carol\n    capacity_sat: 500000\nservices:\n  faucet:\n    node: alice\n',
    );
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
    for (const service of ['chain', 'alice', 'bob', 'carol'])
      expect(result.stdout).toMatch(new RegExp(`✓ ${service} ready`));
    expect(result.stdout).toContain('lab cli: ready');
  });

  it('net on a lab without network faults: status says how to have them, a fault is refused with how (exit 3)', async () => {
    const status = await reglab('net', 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('runs without network faults');
    const refused = await reglab('net', 'delay', 'alice', 'bob', '200ms');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('add `network: { faults: true }` to its lab.yaml');
    expect((await reglab('net', 'delay', 'alice', 'bob', 'soon')).code).toBe(2);
  });

  it('mine 10 raises the height by exactly 10', async () => {
    const before = JSON.parse((await reglab('--json', 'status')).stdout).chain.height;
    const result = await reglab('mine', '10');
    expect(result.code).toBe(0);
    const after = JSON.parse((await reglab('--json', 'status')).stdout).chain.height;
    expect(after).toBe(before + 10);
  });

  it('says when the control plane runs another build of reglab than the CLI (reglab built again since it started)', async () => {
    const daemonFile = join(home, '.reglab', 'daemon.json');
    const written = readFileSync(daemonFile, 'utf8');
    expect(JSON.parse(written).built).toBe(statSync(resolve('dist/bundle/cli.js')).mtime.toISOString());
    const same = await reglab('status');
    expect(same.stderr).not.toContain('not this build');
    try {
      writeFileSync(daemonFile, JSON.stringify({ ...JSON.parse(written), built: '2026-01-01T00:00:00.000Z' }));
      const other = await reglab('status');
      expect(other.code, other.stderr).toBe(0);
      expect(other.stderr).toMatch(
        /the control plane of \S+ \(pid \d+, started \S+\) runs reglab as built at 2026-01-01T00:00:00.000Z, not this build \(\S+\): `reglab down`, then `reglab up`, to run this one/,
      );
    } finally {
      writeFileSync(daemonFile, written, { mode: 0o600 });
    }
  });

  it('pay moves sats alice -> bob -> carol over the channels', async () => {
    const result = await reglab('--json', 'pay', 'alice', 'carol', '1500');
    expect(result.code).toBe(0);
    const job = JSON.parse(result.stdout);
    expect(job.result).toMatchObject({ amountSat: 1500, hops: 2 });
    // carol's side of the channel settles a moment after alice's payment returns
    await waitFor(
      async () => {
        const status = JSON.parse((await reglab('--json', 'status')).stdout);
        return status.nodes.find((node: { name: string }) => node.name === 'carol').channelBalanceSat === 1500;
      },
      { timeoutMs: 15_000, what: "carol's channel balance to show the 1500 sat" },
    );
  });

  it('runs a scenario file with a pass/fail report', async () => {
    const result = await reglab('--json', 'scenario', 'run', resolve('scenarios/alice-to-carol.yaml'));
    const report = JSON.parse(result.stdout);
    expect(report.steps.filter((step: { passed: boolean }) => !step.passed)).toEqual([]);
    expect(result.code).toBe(0);
    expect(report.passed).toBe(true);
  });

  it('a failing scenario stops at the failing step and exits 1', async () => {
    writeFileSync(
      join(home, 'failing.yaml'),
      'name: too much\nsteps:\n  - expect: { node: carol, channel_balance_sat: { at_least: 999999999 } }\n  - mine: { blocks: 1 }\n',
    );
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
    const back = await waitFor(
      async () => {
        const status = JSON.parse((await reglab('--json', 'status')).stdout);
        const bob = status.services.find((service: { name: string }) => service.name === 'bob');
        return bob.status === 'ready' && bob;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'bob restarted by the supervisor' },
    );
    expect(back.restarts).toBe(1);
    expect((await reglab('open')).stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\n$/);
  });

  it('a control plane killed with SIGKILL is started again by its keeper on the same URL: it supervises the lab, the faucet mines through it, and status says how the last one ended', async () => {
    const daemonFile = join(home, '.reglab', 'daemon.json');
    const before = JSON.parse(readFileSync(daemonFile, 'utf8'));
    process.kill(before.pid, 'SIGKILL');
    // the next command waits for the control plane the keeper starts again, rather than start another
    const status = await reglab('--json', 'status');
    expect(status.code, status.stderr).toBe(0);
    const lab = JSON.parse(status.stdout);
    expect(lab.controlPlane).toEqual({ restarts: 1, lastEnded: expect.stringMatching(/^killed by signal 9 at /) });
    const after = JSON.parse(readFileSync(daemonFile, 'utf8'));
    expect(after.pid).not.toBe(before.pid);
    expect(after.url).toBe(before.url);
    expect((await reglab('status')).stdout).toMatch(
      /control plane: started again by its keeper \(1 time\); the last one ended: killed by signal 9 at/,
    );

    // its faucet asks the control plane for the block of each claim
    const faucet = lab.services.find((service: { name: string }) => service.name === 'faucet').info.url;
    const claim = await fetch(`${faucet}api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: lab.labWallet.address }),
    });
    expect(claim.status).toBe(200);
    expect((await claim.json()).block_height).toBe(lab.chain.height + 1);

    const restartsBefore = lab.services.find((service: { name: string }) => service.name === 'bob').restarts;
    expect((await reglab('kill', 'bob')).stdout).toBe('bob restarting\n');
    await waitFor(
      async () => {
        const bob = JSON.parse((await reglab('--json', 'status')).stdout).services.find(
          (service: { name: string }) => service.name === 'bob',
        );
        return bob.status === 'ready' && bob.restarts === restartsBefore + 1;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'bob restarted by the new control plane' },
    );
  });

  it('payments in flight when the control plane is killed end once: the new control plane follows them, and `reglab pay` asks it for the same job', async () => {
    const { pid, url } = JSON.parse(readFileSync(join(home, '.reglab', 'daemon.json'), 'utf8'));
    const json = { 'content-type': 'application/json' };
    const holdInvoice = async (): Promise<{ payment_request: string; payment_hash: string; preimage: string }> =>
      (
        await fetch(`${url}/labs/cli/nodes/carol/invoices`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ amount_msat: 5_000_000, hold: true }),
        })
      ).json();
    const invoiceState = async (hash: string) =>
      (await (await fetch(`${url}/labs/cli/nodes/carol/invoices/${hash}`)).json()).state;
    const [throughApi, throughCli] = [await holdInvoice(), await holdInvoice()];
    const key = `pay-${throughApi.payment_hash.slice(0, 16)}`;
    const payThroughApi = (body: object) =>
      fetch(`${url}/labs/cli/payments?wait=true`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': key },
        body: JSON.stringify(body),
      });

    const lost = payThroughApi({ from: 'alice', invoice: throughApi.payment_request }).then(
      (response) => response.status,
      () => 'no answer',
    );
    const cli = reglab('pay', 'alice', '--invoice', throughCli.payment_request);
    await waitFor(
      async () =>
        (await invoiceState(throughApi.payment_hash)) === 'accepted' &&
        (await invoiceState(throughCli.payment_hash)) === 'accepted',
      { timeoutMs: 30_000, intervalMs: 100, what: 'both payments held by carol' },
    );
    process.kill(pid, 'SIGKILL');
    expect(await lost).toBe('no answer');

    // the keeper's control plane takes the jobs back once their locks expire; only then does carol settle
    const taken = await waitFor(
      async () => {
        const view = await fetch(`${url}/jobs/payments-${key}`).then(
          (response) => (response.ok ? response.json() : undefined),
          () => undefined,
        );
        return view?.takenBack === 1 && view.state === 'active' ? view : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'the payment job taken back by the new control plane' },
    );
    expect(taken.attempts).toBe(0);
    for (const held of [throughApi, throughCli]) {
      const settled = await fetch(`${url}/labs/cli/nodes/carol/invoices/${held.payment_hash}/settle`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ preimage: held.preimage }),
      });
      expect(settled.status).toBe(200);
    }

    // asked again with its key: the same job, which followed the payment it had started instead of paying again
    const again = await payThroughApi({ from: 'alice', invoice: throughApi.payment_request });
    expect(again.status).toBe(200);
    // one attempt ended: the one that followed the payment (another would have failed on it, in flight)
    expect(await again.json()).toMatchObject({
      id: `payments-${key}`,
      state: 'completed',
      attempts: 1,
      takenBack: 1,
      result: { paymentHash: throughApi.payment_hash, preimage: throughApi.preimage, amountSat: 5000 },
    });
    const paid = await cli;
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(
      new RegExp(
        `^paid 5000 sat alice -> the invoice over \\d hop\\(s\\), fee \\d+ sat \\(hash ${throughCli.payment_hash}\\)\n$`,
      ),
    );
    expect(paid.stderr).toMatch(
      /ended before it answered POST \/labs\/cli\/payments \(.+\); its keeper started it again, which is asked again for the same job \(Idempotency-Key [0-9a-f-]{36}\)/,
    );

    // the key given to another request is refused, and a malformed one; neither queues anything
    const reused = await payThroughApi({ from: 'alice', to: 'carol', amount_sat: 1000 });
    expect(reused.status).toBe(409);
    expect((await reused.json()).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const malformed = await fetch(`${url}/labs/cli/mine`, {
      method: 'POST',
      headers: { ...json, 'idempotency-key': 'not a key!' },
      body: JSON.stringify({ blocks: 1 }),
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.message).toContain('idempotency-key');
  });

  it('with its keeper killed too, the next command starts the control plane again and says so; it takes the lab back', async () => {
    const home_ = join(home, '.reglab');
    const before = JSON.parse(readFileSync(join(home_, 'daemon.json'), 'utf8'));
    process.kill(Number(readFileSync(join(home_, 'keeper.pid'), 'utf8')), 'SIGKILL');
    process.kill(before.pid, 'SIGKILL');
    const status = await reglab('status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toContain(`the control plane of ${home_} was not running`);
    expect(status.stdout).toContain('lab cli: ready');
    expect(JSON.parse(readFileSync(join(home_, 'daemon.json'), 'utf8')).url).toBe(before.url);
  });

  it('exit codes tell scripts what went wrong', async () => {
    expect((await reglab('pay', 'alice', 'nobody', '10')).code).toBe(2);
    expect((await reglab('pay', 'alice')).code).toBe(2);
    expect((await reglab('pay', 'alice', 'carol', '--invoice', 'lnbcrt1')).code).toBe(2);
    expect((await reglab('mine', 'ten')).code).toBe(2);
    expect((await reglab('up')).code).toBe(3);
  });

  it('down leaves no process and no port', async () => {
    const status = JSON.parse((await reglab('--json', 'status')).stdout);
    const ports: number[] = status.services.flatMap((service: { ports: Record<string, number> }) =>
      Object.values(service.ports),
    );
    // a dashboard left open follows the lab's events: the control plane stops all the same
    const daemon = JSON.parse(readFileSync(join(home, '.reglab', 'daemon.json'), 'utf8'));
    const follower = await fetch(`${daemon.url}/labs/cli/events`);
    const followed = follower.body!.pipeTo(new WritableStream()).then(
      () => 'ended',
      () => 'cut',
    );
    const result = await reglab('down');
    expect(result.code).toBe(0);
    expect(await followed).toBe('ended');
    for (const port of ports) expect(await isListening(port)).toBe(false);
    // the control plane's keeper and Redis with it
    for (const left of ['keeper.pid', 'daemon.json', 'redis/server.json'])
      expect(existsSync(join(home, '.reglab', left)), left).toBe(false);
    expect((await reglab('status')).code).toBe(3);
  });

  it('up whose control plane is killed during the bring-up says so and exits 1; down then removes the half-started lab', async () => {
    const up = spawn(process.execPath, [resolve('bin/reglab.js'), 'up'], {
      cwd: home,
      env: { ...process.env, REGLAB_HOME: join(home, '.reglab') },
    });
    let stdout = '';
    up.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((done) => up.on('exit', done));
    await waitFor(async () => stdout.includes('✓ chain ready'), {
      timeoutMs: 60_000,
      intervalMs: 20,
      what: 'the bring-up to start',
    });
    process.kill(JSON.parse(readFileSync(join(home, '.reglab', 'daemon.json'), 'utf8')).pid, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(stdout).toMatch(
      /lab cli failed after [\d.]+s \(the control plane ended during the bring-up: killed by signal 9 at [^)]+\): see `reglab logs SERVICE`, then `reglab down`/,
    );
    expect((await reglab('down')).code).toBe(0);
    expect(existsSync(join(home, '.reglab', 'keeper.pid'))).toBe(false);
  });
});
