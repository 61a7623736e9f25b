// Resolves the caller of every non-public route before validation, so unauthenticated callers
// learn nothing about request shapes: Bearer access token (sign-in session) or Bearer API key.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../errors.js';
import { isUuid } from '../ids.js';
import { findUserWithOwnedWallet } from '../wallets/store.js';
import { API_KEY_PREFIX, findActiveApiKey } from './api-keys.js';
import { OwnedWallets } from './owned-wallets.js';
import { scopeAllows, type Principal, type Scope } from './principal.js';
import type { SessionStore } from './sessions.js';
import { verifyAccessToken } from './tokens.js';
import { findUserById } from './users.js';
import { walletKeyOf } from './wallet-header.js';

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw unauthorized('send Authorization: Bearer <access token or API key>', 'MISSING_CREDENTIALS');
  return match[1]!;
}

/** The wallet id of x-service-wallet-key when it is one (walletFromHeader answers the other cases). */
function headerWalletId(request: FastifyRequest): string | undefined {
  const value = walletKeyOf(request);
  return value && isUuid(value) ? value : undefined;
}

/** The user, and the wallet walletId as the principal carries it ({ id } when it is theirs). */
async function findUserAndWallet(
  app: FastifyInstance,
  owned: OwnedWallets,
  userId: string,
  walletId: string,
): Promise<Pick<Principal, 'wallet'> | null> {
  if (owned.owns(userId, walletId)) return { wallet: { id: walletId } };
  const found = await findUserWithOwnedWallet(app.db, userId, walletId);
  if (found?.wallet) owned.remember(userId, walletId);
  return found && { wallet: found.wallet && { id: found.wallet.id } };
}

async function resolve(
  app: FastifyInstance,
  sessions: SessionStore,
  owned: OwnedWallets,
  token: string,
  walletId: string | undefined,
): Promise<Principal> {
  const isAdmin = (pubkey: string) => app.config.adminPubkeys.has(pubkey);
  if (token.startsWith(API_KEY_PREFIX)) {
    const key = await findActiveApiKey(app.db, token);
    if (!key) throw unauthorized('API key is unknown, revoked or expired', 'INVALID_API_KEY');
    return {
      userId: key.user_id,
      pubkey: key.pubkey,
      isAdmin: isAdmin(key.pubkey),
      via: 'api_key',
      scope: key.scope,
      apiKeyId: key.id,
      walletRestriction: key.wallet_id,
      sessionId: null,
    };
  }
  const claims = verifyAccessToken(app.config.tokenSecret, token);
  if (!claims) throw unauthorized('access token is invalid or expired; refresh it or sign in again', 'INVALID_TOKEN');
  // A live session is not enough: servers sharing TOKEN_SECRET and Redis (or a database reset
  // under a running Redis) accept a session whose user is not in this database.
  // The wallet of x-service-wallet-key comes with the user, in one round trip (most calls name one),
  // or from what this server already found (owned-wallets.ts): then the user is known to be here too.
  const [alive, found] = await Promise.all([
    sessions.sessionAlive(claims.sid),
    walletId
      ? findUserAndWallet(app, owned, claims.sub, walletId)
      : findUserById(app.db, claims.sub).then((user) => user && {}),
  ]);
  if (!alive) throw unauthorized('session was logged out; sign in again', 'SESSION_ENDED');
  if (!found) throw unknownUser();
  return {
    userId: claims.sub,
    pubkey: claims.pk,
    isAdmin: isAdmin(claims.pk),
    via: 'access_token',
    scope: 'full',
    apiKeyId: null,
    walletRestriction: null,
    sessionId: claims.sid,
    ...found,
  };
}

/** A well-signed credential whose user this server's database does not hold. */
export const unknownUser = () =>
  unauthorized(
    'the user of this credential is not enrolled on this server (another database, or one since reset); sign in again',
    'UNKNOWN_USER',
  );

/** The API's own description (the OpenAPI document and its browsable /docs) is public. */
const DESCRIPTION_ROUTES = /^\/(docs|openapi\.json)(\/|$)/;

export function installAuthHook(app: FastifyInstance, sessions: SessionStore): void {
  app.decorateRequest('principal', null);
  const owned = new OwnedWallets();
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config ?? {};
    const auth = config.auth ?? 'user';
    const url = request.routeOptions.url;
    if (auth === 'public' || !url || DESCRIPTION_ROUTES.test(url)) return; // unknown routes fall through to 404
    const principal = await resolve(app, sessions, owned, bearer(request), headerWalletId(request));
    const needs: Scope = config.scope ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'full');
    if (!scopeAllows(principal.scope, needs)) {
      throw forbidden(
        `this API key has scope "${principal.scope}"; ${request.method} ${url} needs "${needs}"`,
        'INSUFFICIENT_SCOPE',
      );
    }
    if (auth === 'admin' && !principal.isAdmin)
      throw forbidden('admin only: your pubkey is not in ADMIN_PUBKEYS', 'NOT_ADMIN');
    request.principal = principal;
  });
}

/** The caller of a route that is not public (the hook guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized('authentication required', 'MISSING_CREDENTIALS');
  return request.principal;
}
