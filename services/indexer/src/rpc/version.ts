// Electrum's protocol version negotiation (server.version): the client names the version it speaks
// or a [min, max] range; the server answers with the highest version both speak, or refuses when
// they share none (and closes the connection).
import { ErrorCode, RpcError } from './protocol.js';

/** The client's protocol_version when it sends none (the protocol's default). */
const DEFAULT_CLIENT_VERSION = '1.4';
const VERSION = /^\d+(\.\d+){0,2}$/;

function compare(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const difference = (x[i] ?? 0) - (y[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

const lower = (a: string, b: string) => (compare(a, b) <= 0 ? a : b);
const higher = (a: string, b: string) => (compare(a, b) >= 0 ? a : b);

/** The client and the server share no protocol version: the connection ends after this error. */
export class NoCommonVersion extends RpcError {
  constructor(message: string) {
    super(ErrorCode.badRequest, message);
    this.name = 'NoCommonVersion';
  }
}

/** The version to speak: min(client max, server max), unless that is below max(client min, server min). */
export function negotiateVersion(requested: unknown, server: { min: string; max: string }): string {
  const range =
    requested === undefined || requested === null
      ? [DEFAULT_CLIENT_VERSION, DEFAULT_CLIENT_VERSION]
      : typeof requested === 'string'
        ? [requested, requested]
        : requested;
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !range.every((v) => typeof v === 'string' && VERSION.test(v)) ||
    compare(range[0], range[1]) > 0
  ) {
    throw new RpcError(
      ErrorCode.invalidParams,
      'server.version: protocol_version must be a version such as "1.4" or a range ["1.2", "1.4"]',
    );
  }
  const [clientMin, clientMax] = range as [string, string];
  const version = lower(clientMax, server.max);
  if (compare(version, higher(clientMin, server.min)) < 0) {
    const asked = clientMin === clientMax ? clientMin : `${clientMin} to ${clientMax}`;
    const speaks = server.min === server.max ? server.min : `${server.min} to ${server.max}`;
    throw new NoCommonVersion(`unsupported protocol version ${asked}: this server speaks ${speaks}`);
  }
  return version;
}
