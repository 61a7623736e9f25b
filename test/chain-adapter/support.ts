// The chain-data adapter in-process over a real lab's btcd and the project's indexer (started here,
// in-process too), for tests and the benchmark.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createChainDriver } from '../../control-plane/src/drivers/chain/from-env.js';
import { waitFor } from '../../control-plane/src/util/wait.js';
import { newPrivateKeyHex, regtestKey } from '../../control-plane/src/wallet/keys.js';
import { buildApp } from '../../services/chain-adapter/src/app.js';
import { ElectrumIndexer, parseIndexerUrl } from '../../services/chain-adapter/src/indexer.js';
import { startIndexer } from '../../services/indexer/src/indexer.js';
import type { Regtest } from '../support/regtest.js';

export interface RunningAdapter {
  url: string;
  app: FastifyInstance;
  get<T = unknown>(path: string): Promise<T>;
  close(): Promise<void>;
}

export async function startAdapter(regtest: Regtest): Promise<RunningAdapter> {
  const driver = createChainDriver(regtest.chainRpc);
  const dataDir = mkdtempSync(join(tmpdir(), 'reglab-adapter-index-'));
  const electrum = await startIndexer({ host: '127.0.0.1', port: 0, dataDir, chain: regtest.chainRpc, pollMs: 100, logLevel: 'warn', banner: 'test' });
  const indexer = new ElectrumIndexer(parseIndexerUrl(`tcp://127.0.0.1:${electrum.port}`));
  const app = await buildApp({ network: 'regtest', driver, indexer });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
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
