import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { FeePolicy } from '../../../lib/chain/fee-policy.js';
import { ChainRpcError, type ChainDriver } from '../../../lib/chain/types.js';
import { NETWORKS, type NetworkName } from '../../../lib/bitcoin/address.js';
import { AddressDirectory } from './esplora/address-prefix.js';
import { ChainBlocks } from './esplora/chain-blocks.js';
import { ChainData } from './esplora/chain-data.js';
import { MempoolView } from './esplora/mempool.js';
import { SeenBlocks } from './esplora/seen-blocks.js';
import { FeeEstimator } from './fees.js';
import { unavailable, upstreamFailed, type DomainError } from '../../../lib/errors.js';
import { errorResponses } from '../../../lib/http/errors.js';
import { installMetrics } from '../../../lib/http/metrics.js';
import { createService } from '../../../lib/http/service.js';
import { IndexerUnavailableError, type Indexer } from './indexer.js';
import { addressRoutes } from './routes/address.js';
import { blockRoutes } from './routes/blocks.js';
import { feeRoutes } from './routes/fees.js';
import { healthRoutes } from './routes/health.js';
import { mempoolSpaceRoutes } from './routes/mempool-space.js';
import { mempoolRoutes } from './routes/mempool.js';
import { txRoutes } from './routes/tx.js';

export interface AdapterDeps {
  network: NetworkName;
  driver: ChainDriver;
  indexer: Indexer;
  /** The lab's fee policy (the node's estimates when not given). */
  fees?: FeePolicy;
  logger?: FastifyServerOptions['logger'];
}

/** How often the adapter looks at the indexer's tip, to remember the blocks a reorg replaces. */
const FOLLOW_BLOCKS_MS = 2_000;

/** A failure of the node or the indexer is the lab's, not the caller's: 503 naming which part. */
function mapDependencyError(error: unknown): DomainError | undefined {
  if (error instanceof IndexerUnavailableError) return unavailable('INDEXER_UNAVAILABLE', error.message);
  if (error instanceof ChainRpcError)
    return upstreamFailed('NODE_ERROR', `the node answered ${error.method} with an error: ${error.message}`, error);
  if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    /^E(CONNREFUSED|CONNRESET|HOSTUNREACH|TIMEDOUT)|^UND_ERR/.test(error.code)
  ) {
    return unavailable('NODE_UNAVAILABLE', `the node cannot be reached: ${error.message}`);
  }
  return undefined;
}

/** The chain-data adapter: Esplora-style HTTP over a chain node and an Electrum indexer. */
export async function buildApp(deps: AdapterDeps): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab chain-data adapter',
    description: 'Esplora-style, browser-safe chain data over a regtest node and an Electrum indexer.',
    version: '0.1.0',
    logger: deps.logger ?? false,
    cors: true,
    mapError: mapDependencyError,
  });
  // its requests by route and status: before the hook below, since serving metrics reads neither node nor indexer
  installMetrics(app);
  // Every answer reads the node or the indexer, and either can fail (mapDependencyError).
  app.addHook('onRoute', (route) => {
    if (route.schema && !route.schema.hide)
      route.schema.response = { ...errorResponses(502, 503), ...(route.schema.response as object) };
  });
  const data = new ChainData(deps.indexer, NETWORKS[deps.network]);
  const seen = new SeenBlocks(deps.indexer);
  seen.start(FOLLOW_BLOCKS_MS);
  app.addHook('onClose', async () => seen.stop());
  const blocks = new ChainBlocks(deps.driver, deps.indexer, seen);
  feeRoutes(app, new FeeEstimator(deps.driver, deps.fees));
  addressRoutes(app, data, deps.network, new AddressDirectory(deps.driver, data, NETWORKS[deps.network]));
  txRoutes(app, data, deps.driver);
  blockRoutes(app, deps.driver, blocks, data);
  mempoolRoutes(app, new MempoolView(deps.driver, data));
  mempoolSpaceRoutes(app, blocks, deps.indexer);
  healthRoutes(app, deps.driver, deps.indexer, deps.network);
  return app;
}
