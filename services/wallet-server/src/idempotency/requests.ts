// The Idempotency-Key header on the routes that move money: its schema, the claim a request makes
// with it, and the answer of a request sent again (docs/wallet-server.md, *Idempotency-Key*).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../auth/hook.js';
import { type IdempotencyKeys, type KeyClaim, KeyTaken } from './keys.js';

const HEADER = 'idempotency-key';

/** The header's schema, added to a route's header schema (`headers`, when it has one). */
export function withIdempotencyKey<H extends { type: 'object'; properties: object }>(
  headers: H = { type: 'object', properties: {} } as H,
) {
  return {
    ...headers,
    properties: {
      ...headers.properties,
      [HEADER]: {
        type: 'string',
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        description:
          'sent again with the same request, answers what the first one made (for a day) instead of paying again; the same key with another request is a 409: 1 to 64 letters, digits, _ or -',
      },
    },
  } as const;
}

/** The claim of the request's Idempotency-Key (undefined without one). `asked` is what makes two
 * requests of the route the same: the wallet and the body as the route reads it. */
export function keyClaim(request: FastifyRequest, asked: unknown[]): KeyClaim | undefined {
  const key = request.headers[HEADER];
  if (typeof key !== 'string') return undefined;
  return {
    userId: principalOf(request).userId,
    key,
    route: `${request.method} ${request.routeOptions.url}`,
    fingerprint: createHash('sha256').update(JSON.stringify(asked)).digest('hex'),
  };
}

/**
 * Answers what the earlier request with the claim's key made (`replay`, with the header
 * `idempotent-replayed: true`), else runs `make`, which takes the key with what it makes
 * (IdempotencyKeys.record); another request taking it meanwhile is answered likewise.
 */
export async function once<T>(
  keys: IdempotencyKeys,
  claim: KeyClaim | undefined,
  reply: FastifyReply,
  replay: (madeId: string) => Promise<T>,
  make: () => Promise<T>,
): Promise<T> {
  if (!claim) return make();
  const answerAgain = (madeId: string) => {
    reply.header('idempotent-replayed', 'true');
    return replay(madeId);
  };
  const earlier = await keys.earlier(claim);
  if (earlier) return answerAgain(earlier);
  try {
    return await make();
  } catch (err) {
    if (!(err instanceof KeyTaken)) throw err;
    const taken = await keys.earlier(claim);
    if (!taken) throw err;
    return answerAgain(taken);
  }
}
