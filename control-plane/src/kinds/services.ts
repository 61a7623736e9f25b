import { chainConfigToEnv } from '../../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../../lib/chain/types.js';
import { lndCredentialsToEnv, type LndCredentials } from '../../../lib/lightning/lnd.js';
import type { LaunchSpec, Placement } from './types.js';

/** One of the project's services: listens on HOST and PORT (its one named port), configured by env. */
const service = (entry: string, placement: Placement, portName: string, env: Record<string, string>): LaunchSpec => ({
  program: { type: 'service', entry },
  args: [],
  env: { HOST: placement.listenHost, PORT: String(placement.port(portName)), NODE_ENV: 'production', ...env },
});

export function indexerLaunch(placement: Placement, chain: ChainRpcConfig): LaunchSpec {
  return service('services/indexer/src/main.js', placement, 'electrum', { DATA_DIR: placement.dataDir, ...chainConfigToEnv(chain) });
}

export function chainAdapterLaunch(placement: Placement, chain: ChainRpcConfig, indexerAddress: string): LaunchSpec {
  return service('services/chain-adapter/src/main.js', placement, 'http', { ...chainConfigToEnv(chain), INDEXER_URL: `tcp://${indexerAddress}`, NETWORK: 'regtest' });
}

export interface FaucetSettings {
  chain: ChainRpcConfig;
  lnd: LndCredentials;
  redisUrl: string;
  claimSat: number;
  cooldownSeconds: number;
  /** The control plane's mining endpoint for this lab, so claims are mined through the lab's queue. */
  mineUrl?: string;
  adapterPublicUrl?: string;
}

export function faucetLaunch(placement: Placement, settings: FaucetSettings): LaunchSpec {
  return service('services/faucet/src/main.js', placement, 'http', {
    ...chainConfigToEnv(settings.chain),
    ...lndCredentialsToEnv(settings.lnd),
    REDIS_URL: settings.redisUrl,
    CLAIM_SAT: String(settings.claimSat),
    COOLDOWN_SECONDS: String(settings.cooldownSeconds),
    ...(settings.mineUrl ? { MINE_URL: settings.mineUrl } : {}),
    ...(settings.adapterPublicUrl ? { ADAPTER_PUBLIC_URL: settings.adapterPublicUrl } : {}),
    NETWORK: 'regtest',
  });
}

export interface WalletServerSettings {
  /** The node: an lnd node's credentials, or an RLN node's API URL. */
  node: { kind: 'lnd'; credentials: LndCredentials } | { kind: 'rln'; url: string };
  databaseUrl: string;
  redisUrl: string;
  adminPubkeys: string[];
  tokenSecret: string;
  publicUrl: string;
}

export function walletServerLaunch(placement: Placement, settings: WalletServerSettings): LaunchSpec {
  return service('services/wallet-server/src/main.js', placement, 'http', {
    ...(settings.node.kind === 'lnd' ? lndCredentialsToEnv(settings.node.credentials) : { RLN_URL: settings.node.url }),
    NODE_KIND: settings.node.kind,
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    ADMIN_PUBKEYS: settings.adminPubkeys.join(','),
    TOKEN_SECRET: settings.tokenSecret,
    PUBLIC_URL: settings.publicUrl,
    NETWORK: 'regtest',
  });
}
