import { chainConfigFromEnv } from '../../../control-plane/src/drivers/chain/from-env.js';
import type { ChainRpcConfig } from '../../../control-plane/src/drivers/chain/types.js';
import { NETWORKS, type NetworkName } from './address.js';
import { parseIndexerUrl, type IndexerEndpoint } from './indexer.js';

export interface AdapterConfig {
  host: string;
  port: number;
  network: NetworkName;
  chain: ChainRpcConfig;
  indexer: IndexerEndpoint;
}

export function networkFromEnv(env: NodeJS.ProcessEnv): NetworkName {
  const network = env.NETWORK ?? 'regtest';
  if (!(network in NETWORKS)) throw new Error(`NETWORK must be one of ${Object.keys(NETWORKS).join(', ')}, not "${network}"`);
  return network as NetworkName;
}

export function portFromEnv(env: NodeJS.ProcessEnv, fallback: number): number {
  const port = Number(env.PORT ?? fallback);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a TCP port number, not "${env.PORT}"`);
  return port;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): AdapterConfig {
  return {
    host: env.HOST ?? '127.0.0.1',
    port: portFromEnv(env, 3002),
    network: networkFromEnv(env),
    chain: chainConfigFromEnv(env),
    indexer: parseIndexerUrl(env.INDEXER_URL ?? 'tcp://127.0.0.1:50001'),
  };
}
