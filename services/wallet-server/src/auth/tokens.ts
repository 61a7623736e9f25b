// Access tokens are HS256 JWTs made with node:crypto: {sub: user id, pk: pubkey, sid: session id, iat, exp}.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface AccessClaims {
  sub: string;
  /** the user's pubkey */
  pk: string;
  sid: string;
  iat: number;
  exp: number;
}

const b64 = (v: Buffer | string) => Buffer.from(v).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export function signAccessToken(
  secret: Buffer,
  userId: string,
  pubkey: string,
  sessionId: string,
  ttlSec: number,
): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = b64(
    JSON.stringify({ sub: userId, pk: pubkey, sid: sessionId, iat, exp: iat + ttlSec } satisfies AccessClaims),
  );
  const sig = createHmac('sha256', secret).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${sig}`;
}

/** Claims of a well-signed, unexpired token; null otherwise. */
export function verifyAccessToken(secret: Buffer, token: string): AccessClaims | null {
  const [header, payload, sig] = token.split('.');
  if (!header || !payload || !sig || header !== HEADER) return null;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AccessClaims;
    if (
      typeof claims.sub !== 'string' ||
      typeof claims.pk !== 'string' ||
      typeof claims.sid !== 'string' ||
      typeof claims.exp !== 'number'
    )
      return null;
    return claims.exp > Date.now() / 1000 ? claims : null;
  } catch {
    return null;
  }
}

/** Opaque secrets: refresh tokens, nonces. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('hex');
