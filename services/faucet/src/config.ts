import type { FastifyServerOptions } from 'fastify';
import { chainConfigFromEnv } from '../../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../../lib/chain/types.js';
import { portFromEnv, positiveIntEnv } from '../../../lib/env.js';

export interface FaucetConfig {
  host: string;
  port: number;
  chain: ChainRpcConfig;
  redisUrl: string;
  claimSat: number;
  cooldownSeconds: number;
  mineUrl?: string;
  mineAddress?: string;
  adapterPublicUrl?: string;
  trustProxy: FastifyServerOptions['trustProxy'];
}

/**
 * TRUST_PROXY: unset or "false" -> the client IP is the TCP peer (the lab's default: nothing sits in
 * front of the faucet); "true" -> the left-most X-Forwarded-For; a number -> that many proxy hops;
 * otherwise a comma-separated list of proxy addresses/CIDRs whose X-Forwarded-For is believed.
 */
export function trustProxyFromEnv(value: string | undefined): FastifyServerOptions['trustProxy'] {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address: string, hop: number) => hop < hops;
  }
  return value.split(',').map((entry) => entry.trim());
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): FaucetConfig {
  if ((env.NETWORK ?? 'regtest') !== 'regtest') throw new Error(`the faucet runs on regtest only; NETWORK is "${env.NETWORK}"`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: portFromEnv(env, 3001),
    chain: chainConfigFromEnv(env),
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    claimSat: positiveIntEnv(env, 'CLAIM_SAT', 100_000),
    cooldownSeconds: positiveIntEnv(env, 'COOLDOWN_SECONDS', 15 * 60),
    mineUrl: env.MINE_URL || undefined,
    mineAddress: env.MINE_ADDRESS || undefined,
    adapterPublicUrl: env.ADAPTER_PUBLIC_URL || undefined,
    trustProxy: trustProxyFromEnv(env.TRUST_PROXY),
  };
}
