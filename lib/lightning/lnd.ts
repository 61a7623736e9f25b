import { authenticatedLndGrpc, type AuthenticatedLnd } from 'ln-service';

/** What a client needs to reach one lnd node: where, its TLS certificate and a macaroon. */
export interface LndCredentials {
  /** host:port of lnd's gRPC. */
  socket: string;
  /** tls.cert, base64 of the file's bytes. */
  certBase64: string;
  /** admin.macaroon, as hex. */
  macaroonHex: string;
}

export function connectLnd(credentials: LndCredentials): AuthenticatedLnd {
  return authenticatedLndGrpc({ socket: credentials.socket, cert: credentials.certBase64, macaroon: credentials.macaroonHex }).lnd;
}

/**
 * The lnd connection of a lab service from its environment: LND_GRPC_HOST plus the certificate and
 * macaroon either inline (LND_CERT_BASE64, LND_MACAROON_HEX, as containers get them) or as files
 * (LND_CERT_PATH, LND_MACAROON_PATH).
 */
export async function lndCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<LndCredentials> {
  const { readFile } = await import('node:fs/promises');
  const socket = env.LND_GRPC_HOST;
  if (!socket) throw new Error('LND_GRPC_HOST is required (host:port of the lnd node gRPC)');
  const certBase64 = env.LND_CERT_BASE64 ?? (env.LND_CERT_PATH ? (await readFile(env.LND_CERT_PATH)).toString('base64') : undefined);
  const macaroonHex = env.LND_MACAROON_HEX ?? (env.LND_MACAROON_PATH ? (await readFile(env.LND_MACAROON_PATH)).toString('hex') : undefined);
  if (!certBase64) throw new Error('LND_CERT_BASE64 or LND_CERT_PATH is required (lnd tls.cert)');
  if (!macaroonHex) throw new Error('LND_MACAROON_HEX or LND_MACAROON_PATH is required (lnd admin.macaroon)');
  return { socket, certBase64, macaroonHex };
}

export function lndCredentialsToEnv(credentials: LndCredentials): Record<string, string> {
  return { LND_GRPC_HOST: credentials.socket, LND_CERT_BASE64: credentials.certBase64, LND_MACAROON_HEX: credentials.macaroonHex };
}
