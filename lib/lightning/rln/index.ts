// RGB Lightning Nodes: RLN's HTTP API, with a bearer token when RLN runs with --root-public-key.
import { RlnClient } from '../../rln/client.js';
import type { LightningImplementationModule } from '../client.js';
import { RlnLightning } from './client.js';

export interface RlnConnection {
  /** http://host:port of the node's API. */
  url: string;
  token?: string;
}

/** How long one request to RLN may take, when the caller names no other. */
const RLN_TIMEOUT_MS = 30_000;

export const rln: LightningImplementationModule<RlnConnection> = {
  connect: (connection, options) =>
    new RlnLightning(
      new RlnClient(connection.url, { token: connection.token, timeoutMs: options?.timeoutMs ?? RLN_TIMEOUT_MS }),
      options,
    ),
  connectionFromEnv: async (env) => ({
    url: env.RLN_URL ?? 'http://127.0.0.1:3001',
    token: env.RLN_TOKEN || undefined,
  }),
  connectionToEnv: (connection) => ({
    RLN_URL: connection.url,
    ...(connection.token ? { RLN_TOKEN: connection.token } : {}),
  }),
};
