import type { FastifyInstance } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import { invalid, conflict, forbidden, notFound, unauthorized } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { errors, idParams, uuidString } from '../schemas.js';
import { findOwnedWallet } from '../wallets/store.js';
import { apiKeyJson, createApiKey, revokeApiKey } from './api-keys.js';
import { principalOf, unknownUser } from './hook.js';
import {
  isValidAddress,
  isValidPubkey,
  loginMessage,
  PUBKEY_PATTERN,
  SIGNATURE_PATTERN,
  verifyLoginSignature,
} from './keys.js';
import type { Scope } from './principal.js';
import type { SessionStore } from './sessions.js';
import { signAccessToken } from './tokens.js';
import { findUserById, findUserByPubkey, insertUser, userJson } from './users.js';

const pubkey = {
  type: 'string',
  pattern: PUBKEY_PATTERN,
  description: '33-byte compressed secp256k1 public key, hex',
} as const;
const refreshBody = {
  type: 'object',
  additionalProperties: false,
  required: ['refresh_token'],
  properties: { refresh_token: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
const tokensSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string' },
    refresh_expires_in: { type: 'integer' },
  },
} as const;
const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    pubkey: { type: 'string' },
    bitcoin_address: { type: 'string' },
    is_admin: { type: 'boolean' },
    created_at: { type: 'string' },
  },
} as const;
const apiKeySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    scope: { type: 'string' },
    wallet_id: { type: ['string', 'null'] },
    expires_at: { type: ['string', 'null'] },
    revoked_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
    api_key: { type: 'string', description: 'the secret; shown only in this response' },
  },
} as const;

export async function authRoutes(app: FastifyInstance, opts: { sessions: SessionStore }): Promise<void> {
  const { sessions } = opts;
  const cfg = app.config;

  const tokens = (user: { id: string; pubkey: string }, sessionId: string, refreshToken: string) => ({
    access_token: signAccessToken(cfg.tokenSecret, user.id, user.pubkey, sessionId, cfg.accessTokenTtlSec),
    token_type: 'Bearer',
    expires_in: cfg.accessTokenTtlSec,
    refresh_token: refreshToken,
    refresh_expires_in: cfg.refreshTokenTtlSec,
  });

  app.post<{ Body: { pubkey: string; bitcoin_address: string } }>(
    '/auth/enroll',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Enroll a user by public key and bitcoin address (of the configured network)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['pubkey', 'bitcoin_address'],
          properties: { pubkey, bitcoin_address: { type: 'string', minLength: 1, maxLength: 100 } },
        },
        response: { 200: { type: 'object', properties: { user: userSchema } }, ...errors(400, 409, 502) },
      },
    },
    async (request) => {
      const pk = request.body.pubkey.toLowerCase();
      if (!isValidPubkey(pk)) throw invalid('INVALID_PUBKEY', 'pubkey is not a point on secp256k1');
      if (!isValidAddress(request.body.bitcoin_address, cfg.network)) {
        throw invalid('INVALID_ADDRESS', `bitcoin_address is not a valid ${cfg.network} address`);
      }
      const user = await app.db.transaction(async (tx) => {
        const created = await insertUser(tx, newId(), pk, request.body.bitcoin_address);
        if (!created)
          throw conflict('ALREADY_ENROLLED', 'this pubkey is already enrolled; sign in with GET /auth/challenge');
        await recordAudit(tx, {
          userId: created.id,
          action: 'user.enrolled',
          targetType: 'user',
          targetId: created.id,
          ip: request.ip,
        });
        return created;
      });
      return { user: userJson(user, cfg.adminPubkeys.has(pk)) };
    },
  );

  app.get<{ Querystring: { pubkey: string } }>(
    '/auth/challenge',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Issue a single-use nonce to sign',
        querystring: { type: 'object', required: ['pubkey'], properties: { pubkey } },
        response: {
          200: {
            type: 'object',
            properties: {
              nonce: { type: 'string' },
              message: { type: 'string', description: 'sign sha256(utf8(message)) with the key' },
              expires_in: { type: 'integer' },
            },
          },
          ...errors(400, 404, 502),
        },
      },
    },
    async (request) => {
      const pk = request.query.pubkey.toLowerCase();
      if (!isValidPubkey(pk)) throw invalid('INVALID_PUBKEY', 'pubkey is not a point on secp256k1');
      if (!(await findUserByPubkey(app.db, pk)))
        throw notFound('user with this pubkey (enroll first with POST /auth/enroll)');
      const nonce = await sessions.issueNonce(pk);
      return { nonce, message: loginMessage(nonce), expires_in: cfg.nonceTtlSec };
    },
  );

  app.post<{ Body: { pubkey: string; nonce: string; signature: string } }>(
    '/auth/verify',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Prove the key by signing the challenge; issues tokens',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['pubkey', 'nonce', 'signature'],
          properties: {
            pubkey,
            nonce: { type: 'string', minLength: 1, maxLength: 200 },
            signature: {
              type: 'string',
              pattern: SIGNATURE_PATTERN,
              description: '64-byte compact ECDSA signature (r || s), hex; DER is not accepted',
            },
          },
        },
        response: { 200: tokensSchema, ...errors(400, 401, 502) },
      },
    },
    async (request) => {
      const pk = request.body.pubkey.toLowerCase();
      const user = await findUserByPubkey(app.db, pk);
      const signed = user !== null && (await verifyLoginSignature(pk, request.body.nonce, request.body.signature));
      // The nonce is consumed only by a valid signature, so a forged attempt cannot burn it.
      if (!user || !signed || !(await sessions.consumeNonce(pk, request.body.nonce))) {
        if (user)
          await recordAudit(app.db, {
            userId: user.id,
            action: 'auth.sign_in_failed',
            targetType: 'user',
            targetId: user.id,
            ip: request.ip,
          });
        throw unauthorized(
          'signature, nonce or pubkey not accepted (nonces are single-use and expire); request a new challenge',
          'SIGN_IN_FAILED',
        );
      }
      const sessionId = newId();
      const refreshToken = await sessions.startSession(user.id, sessionId);
      await recordAudit(app.db, {
        userId: user.id,
        action: 'auth.signed_in',
        targetType: 'session',
        targetId: sessionId,
        ip: request.ip,
      });
      return tokens(user, sessionId, refreshToken);
    },
  );

  app.post<{ Body: { refresh_token: string } }>(
    '/auth/refresh',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Exchange a refresh token for a new access token and a new refresh token (the old one stops working)',
        body: refreshBody,
        response: { 200: tokensSchema, ...errors(400, 401, 502) },
      },
    },
    async (request) => {
      const rotated = await sessions.rotateRefresh(request.body.refresh_token);
      const user = rotated && (await findUserById(app.db, rotated.userId));
      if (!rotated || !user) {
        throw unauthorized(
          'refresh token is unknown, already used, expired or logged out; sign in again',
          'INVALID_REFRESH_TOKEN',
        );
      }
      return tokens(user, rotated.sessionId, rotated.refreshToken);
    },
  );

  app.post<{ Body: { refresh_token: string } }>(
    '/auth/logout',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Revoke the refresh token and its session (its access tokens stop working too)',
        body: refreshBody,
        response: { 200: { type: 'object', properties: { revoked: { type: 'boolean' } } }, ...errors(400, 502) },
      },
    },
    async (request) => ({ revoked: await sessions.logout(request.body.refresh_token) }),
  );

  app.get(
    '/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'The current user and the credential used',
        response: {
          200: {
            type: 'object',
            properties: {
              user: userSchema,
              credential: {
                type: 'object',
                properties: {
                  type: { type: 'string' },
                  scope: { type: 'string' },
                  api_key_id: { type: ['string', 'null'] },
                  wallet_id: { type: ['string', 'null'] },
                },
              },
            },
          },
          ...errors(401),
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const user = await findUserById(app.db, p.userId);
      if (!user) throw unknownUser();
      return {
        user: userJson(user, p.isAdmin),
        credential: { type: p.via, scope: p.scope, api_key_id: p.apiKeyId, wallet_id: p.walletRestriction },
      };
    },
  );

  app.post<{ Body: { name: string; scope?: Scope | null; expires_at?: string | null; wallet_id?: string | null } }>(
    '/auth/api-keys',
    {
      schema: {
        tags: ['auth'],
        summary: 'Create an API key; the secret is in this response only',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            scope: { type: ['string', 'null'], enum: ['read', 'invoice', 'full', null] },
            expires_at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
            wallet_id: { anyOf: [uuidString, { type: 'null' }] },
          },
        },
        response: { 200: apiKeySchema, ...errors(400, 401, 403, 502) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const expiresAt = request.body.expires_at ? new Date(request.body.expires_at) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now())
        throw invalid('INVALID_EXPIRY', 'expires_at must be in the future');
      const walletId = request.body.wallet_id ?? null;
      if (p.walletRestriction && walletId !== p.walletRestriction) {
        throw forbidden(
          `this API key is restricted to wallet ${p.walletRestriction}; keys it creates must name that wallet_id`,
        );
      }
      if (walletId && !(await findOwnedWallet(app.db, p.userId, walletId))) {
        throw invalid('UNKNOWN_WALLET', `wallet_id ${walletId} is not one of your wallets`);
      }
      const { key, secret } = await app.db.transaction(async (tx) => {
        const created = await createApiKey(tx, {
          userId: p.userId,
          name: request.body.name,
          scope: request.body.scope ?? 'full',
          walletId,
          expiresAt,
        });
        await recordAudit(tx, {
          userId: p.userId,
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: created.key.id,
          details: { scope: created.key.scope, wallet_id: walletId },
          ip: request.ip,
        });
        return created;
      });
      return { ...apiKeyJson(key), api_key: secret };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/auth/api-keys/:id',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke an API key (a wallet-restricted key may revoke only itself)',
        params: idParams,
        response: { 200: apiKeySchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      if (p.walletRestriction && request.params.id !== p.apiKeyId) {
        throw forbidden(
          `this API key is restricted to wallet ${p.walletRestriction} and may revoke only itself; revoke other keys with a sign-in token or an unrestricted key`,
          'KEY_RESTRICTED_TO_WALLET',
        );
      }
      if (!isUuid(request.params.id)) throw notFound(`API key ${request.params.id}`);
      const key = await app.db.transaction(async (tx) => {
        const revoked = await revokeApiKey(tx, p.userId, request.params.id);
        if (!revoked) throw notFound(`API key ${request.params.id}`);
        await recordAudit(tx, {
          userId: p.userId,
          action: 'api_key.revoked',
          targetType: 'api_key',
          targetId: revoked.id,
          ip: request.ip,
        });
        return revoked;
      });
      return apiKeyJson(key);
    },
  );
}
