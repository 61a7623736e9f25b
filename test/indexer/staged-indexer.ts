// The indexer served over a staged chain (a ChainDriver of the test's own), with a bare line client.
// Its follower polls once a minute: only what a request triggers can move it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChainDriver } from '../../lib/chain/types.js';
import { startIndexer, type RunningIndexer } from '../../services/indexer/src/indexer.js';
import { connectLineClient, type LineClient } from './rpc-line-client.js';

export interface StagedIndexer {
  indexer: RunningIndexer;
  client: LineClient;
  close(): Promise<void>;
}

export async function startStagedIndexer(driver: ChainDriver): Promise<StagedIndexer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'indexer-staged-'));
  const indexer = await startIndexer(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      chain: { kind: 'btcd', url: 'http://127.0.0.1:1', user: 'unused', password: 'unused' },
      pollMs: 60_000,
      logLevel: 'silent',
      banner: 'test',
    },
    { driver },
  );
  const client = await connectLineClient(indexer.port);
  return {
    indexer,
    client,
    async close() {
      client.close();
      await indexer.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
