import { LdkClient } from '../../../../lib/lightning/ldk/api.js';
import { connectLnd, lndCredentialsFromEnv } from '../../../../lib/lightning/lnd/connection.js';
import type { LightningConfig } from './config.js';
import type { NodeGateway } from './gateway.js';
import { LdkGateway } from './ldk-gateway.js';
import { LndGateway } from './lnd-gateway.js';
import { RlnGateway } from './rln-gateway.js';

/** The node named by the environment: lnd (LND_GRPC_HOST + LND_CERT_PATH/LND_MACAROON_PATH, or
 * LND_CERT_BASE64/LND_MACAROON_HEX), LDK (LDK_URL: a reglab-ldk daemon) or RLN (RLN_URL, RLN_TOKEN). */
export async function gatewayFromEnv(
  config: LightningConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<NodeGateway> {
  if (config.nodeKind === 'rln') return new RlnGateway({ url: config.rlnUrl, token: config.rlnToken });
  if (config.nodeKind === 'ldk') return new LdkGateway(new LdkClient(config.ldkUrl));
  return new LndGateway(connectLnd(await lndCredentialsFromEnv(env)));
}
