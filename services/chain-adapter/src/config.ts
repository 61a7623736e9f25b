import { feePolicyFromEnv, type FeePolicy } from '../../../lib/chain/fee-policy.js';
import { chainConfigFromEnv } from '../../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../../lib/chain/types.js';
import { portFromEnv } from '../../../lib/env.js';
import { NETWORKS, type NetworkName } from '../../../lib/bitcoin/address.js';
import { parseIndexerUrl, type IndexerEndpoint } from './indexer.js';

export interface AdapterConfig {
  host: string;
  port: number;
  network: NetworkName;
  chain: ChainRpcConfig;
  indexer: IndexerEndpoint;
  fees: FeePolicy;
}

export function networkFromEnv(env: NodeJS.ProcessEnv): NetworkName {
  const network = env.NETWORK ?? 'regtest';
  if (!(network in NETWORKS))
    throw new Error(`NETWORK must be one of ${Object.keys(NETWORKS).join(', ')}, not "${network}"`);
  return network as NetworkName;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): AdapterConfig {
  return {
    host: env.HOST ?? '127.0.0.1',
    port: portFromEnv(env, 3002),
    network: networkFromEnv(env),
    chain: chainConfigFromEnv(env),
    indexer: parseIndexerUrl(env.INDEXER_URL ?? 'tcp://127.0.0.1:50001'),
    fees: feePolicyFromEnv(env),
  };
}
