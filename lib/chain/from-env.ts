import { readFileSync } from 'node:fs';
import { BitcoindDriver } from './bitcoind.js';
import { BtcdDriver } from './btcd.js';
import type { ChainDriver, ChainKind, ChainRpcConfig } from './types.js';

export function createChainDriver(config: ChainRpcConfig): ChainDriver & { close(): void } {
  return config.kind === 'btcd' ? new BtcdDriver(config) : new BitcoindDriver(config);
}

/**
 * The chain connection of a lab service, from the environment the lab gives it:
 * CHAIN_KIND (btcd | bitcoind), CHAIN_RPC_URL, CHAIN_RPC_USER, CHAIN_RPC_PASS and, for btcd's TLS,
 * CHAIN_RPC_CERT (a file path) or CHAIN_RPC_CERT_PEM (the PEM itself, as containers get it).
 */
export function chainConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ChainRpcConfig {
  const kind = (env.CHAIN_KIND ?? 'btcd') as ChainKind;
  if (kind !== 'btcd' && kind !== 'bitcoind') throw new Error(`CHAIN_KIND must be btcd or bitcoind, not "${kind}"`);
  const url = env.CHAIN_RPC_URL;
  if (!url) throw new Error('CHAIN_RPC_URL is required (e.g. https://127.0.0.1:18334 for btcd)');
  const tlsCertPem =
    env.CHAIN_RPC_CERT_PEM ?? (env.CHAIN_RPC_CERT ? readFileSync(env.CHAIN_RPC_CERT, 'utf8') : undefined);
  return { kind, url, user: env.CHAIN_RPC_USER ?? 'reglab', password: env.CHAIN_RPC_PASS ?? 'reglab', tlsCertPem };
}

export function chainConfigToEnv(config: ChainRpcConfig): Record<string, string> {
  const env: Record<string, string> = {
    CHAIN_KIND: config.kind,
    CHAIN_RPC_URL: config.url,
    CHAIN_RPC_USER: config.user,
    CHAIN_RPC_PASS: config.password,
  };
  if (config.tlsCertPem) env.CHAIN_RPC_CERT_PEM = config.tlsCertPem;
  return env;
}
