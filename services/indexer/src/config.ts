import { join } from 'node:path';
import { feePolicyFromEnv, type FeePolicy } from '../../../lib/chain/fee-policy.js';
import { chainConfigFromEnv } from '../../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../../lib/chain/types.js';
import type { LogLevel } from './log.js';

export interface IndexerConfig {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  dataDir: string;
  chain: ChainRpcConfig;
  pollMs: number;
  logLevel: LogLevel;
  banner: string;
  /** What blockchain.estimatefee answers: the lab's fee policy (the node's estimates when not given). */
  fees?: FeePolicy;
}

const LOG_LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, not "${raw}"`);
  return value;
}

/**
 * PORT (default 50001, Electrum's plain-TCP port), HOST (127.0.0.1), DATA_DIR (./data/indexer),
 * POLL_MS (250), LOG_LEVEL (info), the chain connection: CHAIN_KIND, CHAIN_RPC_URL,
 * CHAIN_RPC_USER, CHAIN_RPC_PASS, CHAIN_RPC_CERT (path) or CHAIN_RPC_CERT_PEM, and the fee policy:
 * FEE_POLICY (node, the default, or fixed) with FEE_SAT_PER_VBYTE.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): IndexerConfig {
  const logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: intFromEnv(env, 'PORT', 50001),
    dataDir: env.DATA_DIR ?? join(process.cwd(), 'data', 'indexer'),
    chain: chainConfigFromEnv(env),
    pollMs: intFromEnv(env, 'POLL_MS', 250),
    logLevel,
    banner: env.BANNER ?? 'reglab indexer: the Electrum protocol over a regtest node',
    fees: feePolicyFromEnv(env),
  };
}
