// The chain-data adapter in-process over a real lab's btcd and the project's indexer (started here,
// in-process too), for tests and the benchmark.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createChainDriver } from '../../lib/chain/from-env.js';
import { programArguments } from '../../lib/programs.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { newPrivateKeyHex, regtestKey } from '../../control-plane/src/wallet/keys.js';
import { buildApp } from '../../services/chain-adapter/src/app.js';
import { ElectrumIndexer, parseIndexerUrl } from '../../services/chain-adapter/src/indexer.js';
import { startIndexer } from '../../services/indexer/src/indexer.js';
import type { Regtest } from '../support/regtest.js';

export interface RunningAdapter {
  url: string;
  /** tcp://host:port of the indexer it reads. */
  indexerUrl: string;
  app: FastifyInstance;
  get<T = unknown>(path: string): Promise<T>;
  close(): Promise<void>;
}

export async function startAdapter(regtest: Regtest): Promise<RunningAdapter> {
  const driver = createChainDriver(regtest.chainRpc);
  const dataDir = mkdtempSync(join(tmpdir(), 'reglab-adapter-index-'));
  const electrum = await startIndexer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    chain: regtest.chainRpc,
    pollMs: 100,
    logLevel: 'warn',
    banner: 'test',
  });
  const indexerUrl = `tcp://127.0.0.1:${electrum.port}`;
  const indexer = new ElectrumIndexer(parseIndexerUrl(indexerUrl));
  const app = await buildApp({ network: 'regtest', driver, indexer });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    indexerUrl,
    app,
    async get<T>(path: string) {
      const response = await fetch(`${url}${path}`);
      const text = await response.text();
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text}`);
      return (response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as T;
    },
    async close() {
      await app.close();
      indexer.close();
      await electrum.close();
      driver.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const freshKey = () => regtestKey(newPrivateKeyHex());

/** Waits until the adapter (so the indexer) has caught up with the node's tip. */
export async function waitIndexed(adapter: RunningAdapter, regtest: Regtest): Promise<number> {
  const height = await regtest.chain.getBlockCount();
  return waitFor(async () => Number(await adapter.get<string>('/api/blocks/tip/height')) >= height && height, {
    timeoutMs: 30_000,
    intervalMs: 100,
    what: `the indexer to reach height ${height}`,
  });
}

export interface RunningEntryPoint {
  url: string;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs a service's main.ts as the lab would (its bundle once built, lib/programs.ts; from env, on
 * PORT) and waits until `readyPath` answers 200.
 */
export async function runEntryPoint(
  entry: string,
  env: Record<string, string>,
  readyPath: string,
): Promise<RunningEntryPoint> {
  const port = await freePort();
  const child = spawn(process.execPath, programArguments(entry.replace(/\.ts$/, '.js')), {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${url}${readyPath}`)).status === 200, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: `${entry} to answer ${readyPath}`,
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
