import { resolve } from 'node:path';
import { portFromEnv } from '../../../lib/env.js';

export interface RgbNodeConfig {
  host: string;
  port: number;
  /** The node's own folder: sealed keys, node.json, the rgb-lib wallet. */
  dataDir: string;
  /** tcp://host:port (Electrum) or http://host:port/api (Esplora); /unlock's indexer_url wins. */
  indexerUrl?: string;
  /** rpc://host:port/json-rpc, the consignment proxy invoices name by default. */
  proxyEndpoint?: string;
}

const INDEXER_URL = /^(tcp|ssl):\/\/[^/\s]+:\d+$|^https?:\/\/\S+$/;
const PROXY_ENDPOINT = /^rpcs?:\/\/\S+$/;

function optionalUrl(env: NodeJS.ProcessEnv, name: string, pattern: RegExp, example: string): string | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!pattern.test(value)) throw new Error(`${name} must look like ${example}, not "${value}"`);
  return value;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): RgbNodeConfig {
  if ((env.NETWORK ?? 'regtest') !== 'regtest')
    throw new Error(`the rgb node runs on regtest only; NETWORK is "${env.NETWORK}"`);
  if (!env.DATA_DIR) throw new Error('DATA_DIR must name the folder of the node (its keys and wallet)');
  return {
    host: env.HOST ?? '127.0.0.1',
    port: portFromEnv(env, 3001),
    dataDir: resolve(env.DATA_DIR),
    indexerUrl: optionalUrl(env, 'INDEXER_URL', INDEXER_URL, 'tcp://127.0.0.1:50001 or http://127.0.0.1:3002/api'),
    proxyEndpoint: optionalUrl(env, 'PROXY_ENDPOINT', PROXY_ENDPOINT, 'rpc://127.0.0.1:3000/json-rpc'),
  };
}
