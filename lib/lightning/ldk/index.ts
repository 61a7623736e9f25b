// LDK nodes: reglab-ldk's HTTP API (nodes/ldk/README.md), which takes no credentials.
import type { RpcChainDriver } from '../../chain/rpc-driver.js';
import type { LightningImplementationModule } from '../client.js';
import { LdkClient } from './api.js';
import { LdkLightning } from './client.js';

export interface LdkConnection {
  /** http://host:port of the daemon's API. */
  url: string;
  /**
   * The chain node the daemon follows, where the caller reaches it. Channel control needs it (LDK
   * names its graph's channels by short channel id, which the chain gives from a funding
   * transaction, and broadcasts a moment after it answers: its transactions are awaited in the
   * chain's mempool), and with it the reads that depend on the chain sync LDK to its tip first.
   */
  chain?: RpcChainDriver;
}

export const ldk: LightningImplementationModule<LdkConnection> = {
  connect: (connection, options) =>
    new LdkLightning(new LdkClient(connection.url, { timeoutMs: options?.timeoutMs }), connection.chain, options),
  connectionFromEnv: async (env) => ({ url: env.LDK_URL ?? 'http://127.0.0.1:3000' }),
  connectionToEnv: (connection) => ({ LDK_URL: connection.url }),
};
