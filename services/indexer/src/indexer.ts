import { watchBtcd } from '../../../lib/chain/btcd-notifications.js';
import { createChainDriver } from '../../../lib/chain/from-env.js';
import type { ChainDriver, ChainRpcConfig } from '../../../lib/chain/types.js';
import type { IndexerConfig } from './config.js';
import { ChainFollower, type ChainNotices } from './follower.js';
import { createLogger } from './log.js';
import { Mempool } from './mempool.js';
import { ScriptHashQueries } from './queries.js';
import { ElectrumServer } from './rpc/server.js';
import { IndexStore } from './store.js';

export interface RunningIndexer {
  port: number;
  host: string;
  store: IndexStore;
  follower: ChainFollower;
  /** Indexed tip height, -1 before the first block. */
  height(): number;
  close(): Promise<void>;
}

/** How long start-up waits for the index to reach the node's tip before it serves anyway (and goes on catching up). */
const STARTUP_CATCH_UP_MS = 30_000;

/**
 * Serving only once caught up (within reason) means that when the lab sees the port open, answers
 * already reflect the chain as it was at start-up.
 */
async function firstCatchUp(follower: ChainFollower): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, STARTUP_CATCH_UP_MS)));
  await Promise.race([follower.poke(), timeout]);
  clearTimeout(timer);
}

export interface IndexerOptions {
  /**
   * A driver to use instead of one made from `config.chain` (tests, benches); it is not closed, and
   * the follower polls it rather than hear `config.chain`'s notices.
   */
  driver?: ChainDriver;
  /** The notices of the node behind `driver` (tests). */
  notices?: ChainNotices;
}

/** The node's notices, where its kind gives them: btcd's websocket notifications of blocks and mempool transactions. */
function noticesOf(chain: ChainRpcConfig): ChainNotices | undefined {
  if (chain.kind !== 'btcd') return undefined;
  return (onChange, onLost) => watchBtcd(() => chain, onChange, { transactions: true, onLost });
}

/** Opens the index, starts following the node and serves the Electrum protocol. */
export async function startIndexer(config: IndexerConfig, options: IndexerOptions = {}): Promise<RunningIndexer> {
  const log = createLogger(config.logLevel);
  const ownDriver = options.driver ? undefined : createChainDriver(config.chain);
  const driver = options.driver ?? ownDriver!;
  const store = await IndexStore.open(config.dataDir);
  const mempool = new Mempool();
  const queries = new ScriptHashQueries(store, mempool);
  const follower = new ChainFollower(
    driver,
    store,
    mempool,
    log,
    config.pollMs,
    options.notices ?? (ownDriver && noticesOf(config.chain)),
  );
  const server = new ElectrumServer(
    { store, queries, driver, pokeFollower: () => follower.poke(), banner: config.banner, fees: config.fees },
    store,
    queries,
    log,
  );
  // One change is notified after the other, so a status computed earlier is never sent later.
  let notifying = Promise.resolve();
  follower.on('change', (change) => {
    notifying = notifying
      .then(() => server.notify(change))
      .catch((error: Error) => log.error('notifying subscribers failed', { error: error.message }));
  });
  follower.start();
  await firstCatchUp(follower);
  const port = await server.listen(config.port, config.host);
  log.info('indexer listening', { host: config.host, port, dataDir: config.dataDir, indexedHeight: store.height });
  return {
    port,
    host: config.host,
    store,
    follower,
    height: () => store.height,
    async close() {
      await server.close();
      await follower.stop();
      await store.close();
      ownDriver?.close();
      log.info('indexer stopped');
    },
  };
}
