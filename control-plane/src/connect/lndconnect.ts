// lndconnect URIs (github.com/LN-Zap/lndconnect), what Zeus, ThunderHub and other wallet apps take
// to reach an lnd node in one string: lndconnect://HOST:PORT?cert=CERT&macaroon=MACAROON, the TLS
// certificate as base64url of its DER bytes and the macaroon as base64url, both without padding.
import { X509Certificate } from 'node:crypto';

/** The lndconnect URI of an lnd at `hostPort` (its gRPC or its REST port), from its PEM certificate and hex macaroon. */
export function lndconnectUri(hostPort: string, certPem: string, macaroonHex: string): string {
  const cert = new X509Certificate(certPem).raw.toString('base64url');
  const macaroon = Buffer.from(macaroonHex, 'hex').toString('base64url');
  return `lndconnect://${hostPort}?cert=${cert}&macaroon=${macaroon}`;
}
