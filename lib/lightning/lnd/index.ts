// lnd, over ln-service: the connection is lnd's gRPC address, its TLS certificate and a macaroon.
import type { LightningImplementationModule } from '../client.js';
import { LndLightning } from './client.js';
import { lndCredentialsFromEnv, lndCredentialsToEnv, type LndCredentials } from './connection.js';

export const lnd: LightningImplementationModule<LndCredentials> = {
  connect: (credentials, options) => new LndLightning(credentials, options),
  connectionFromEnv: lndCredentialsFromEnv,
  connectionToEnv: lndCredentialsToEnv,
};
