// The indexer as a process: its entry point, configured from the environment the lab gives it.
// Its own lab of btcd alone (up in about a second): the indexer it runs is the test's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_PROGRAMS, programArguments } from '../../lib/programs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mineBlocks } from '../../control-plane/src/lab/operations.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { connectNpmElectrum, type NpmElectrum } from './electrum-npm-client.js';

describe('indexer entry point (services/indexer/src/main.ts)', () => {
  let regtest: Regtest;
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let client: NpmElectrum;

  beforeAll(async () => {
    regtest = await startRegtest();
    dataDir = mkdtempSync(join(tmpdir(), 'indexer-main-'));
    const port = await freePort();
    // as the lab runs it: its bundle once built
    child = spawn(process.execPath, programArguments(BUNDLED_PROGRAMS.indexer!), {
      env: { ...process.env, ...regtest.chainEnv, PORT: String(port), DATA_DIR: dataDir, POLL_MS: '100' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    client = await waitFor(() => connectNpmElectrum(port), {
      timeoutMs: 60_000,
      what: `the indexer on port ${port}`,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
  });

  afterAll(async () => {
    client?.close();
    if (child?.exitCode === null) child.kill('SIGKILL');
    await regtest?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is caught up once it answers, follows new blocks, logs JSON and stops on SIGTERM', async () => {
    const tip = await client.request<{ height: number }>('blockchain.headers.subscribe');
    expect(tip.height).toBe(await regtest.chain.getBlockCount());
    const { height } = await mineBlocks(regtest.session, 2);
    await waitFor(
      async () =>
        client
          .notifications('blockchain.headers.subscribe')
          .some(([header]) => (header as { height: number }).height === height),
      {
        timeoutMs: 10_000,
        what: `a header notification for height ${height}`,
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = output
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(
      expect.arrayContaining(['indexer listening', 'indexer stopped']),
    );
  });
});
