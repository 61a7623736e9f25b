// The indexer stops on SIGTERM even when DNS no longer answers for its chain node's name. In a
// docker lab on Podman it reaches btcd by service name, and aardvark-dns goes silent for seconds
// when other containers stop (a snapshot stops them just before the indexer): an indexer that
// looked the name up at each of its polls had a lookup in flight, which its close() and even
// process.exit wait for, and outlived the 15 s stop timeout (docs/benchmarks-log.md, Snapshots).
// Its own lab of btcd alone (up in about a second): the indexer it runs and stops is the test's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_PROGRAMS, programArguments } from '../../lib/programs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electrumCall } from '../../control-plane/src/nodes/indexer/electrum.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

/** What the docker runtime gives a container to end after its stop signal, before it kills it. */
const STOP_TIMEOUT_MS = 15_000;

describe('indexer stop with a silent resolver', () => {
  let regtest: Regtest;
  let dataDir: string;
  let child: ChildProcess;
  let output = '';

  beforeAll(async () => {
    regtest = await startRegtest();
    dataDir = mkdtempSync(join(tmpdir(), 'indexer-silent-dns-'));
  });

  afterAll(async () => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await regtest?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 and logs "indexer stopped" when lookups of the node name after the first go unanswered', async () => {
    const url = new URL(regtest.chainEnv.CHAIN_RPC_URL!);
    url.hostname = 'localhost'; // a name, as in a docker lab (btcd's certificate names localhost)
    const port = await freePort();
    child = spawn(
      process.execPath,
      ['--require', join(import.meta.dirname, 'silent-dns.cjs'), ...programArguments(BUNDLED_PROGRAMS.indexer!)],
      {
        env: {
          ...process.env,
          ...regtest.chainEnv,
          CHAIN_RPC_URL: url.href,
          SILENT_DNS_HOST: 'localhost',
          PORT: String(port),
          DATA_DIR: dataDir,
          POLL_MS: '100',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    // it serves once caught up (or after 30 s of trying)
    await waitFor(() => electrumCall(`127.0.0.1:${port}`, 'server.version', ['test', '1.4']), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'the indexer serving',
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });

    child.kill('SIGTERM');
    // as long as the docker runtime waits before its SIGKILL
    const code = await Promise.race([
      exited,
      new Promise<string>((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS, 'still running')),
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain('"msg":"indexer stopped"');
  });
});
