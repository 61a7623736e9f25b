import type { FastifyInstance } from 'fastify';
import { recordAudit } from '../audit/audit.js';
import { ownedWallet } from '../auth/wallet-access.js';
import { principalOf } from '../auth/hook.js';
import { forbidden } from '../errors.js';
import { paymentJson, paymentSchema } from '../ledger/index.js';
import { errors, idParams, nextCursor, pageQuery, type PageQuery } from '../schemas.js';
import { checkMetadata, METADATA_MAX_BYTES, METADATA_MAX_DEPTH } from './metadata.js';
import { archiveWallet, createWallet, listWallets, updateWallet, walletJson, type Wallet } from './store.js';

const metadataSchema = {
  description: `any JSON, at most ${METADATA_MAX_DEPTH} levels deep and ${METADATA_MAX_BYTES} bytes`,
} as const;

const walletSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    metadata: {},
    archived: { type: 'boolean' },
    archived_at: { type: ['string', 'null'] },
    balance_msat: { type: 'string' },
    assets: {
      type: 'array',
      items: { type: 'object', properties: { asset_id: { type: 'string' }, amount: { type: 'string' } } },
    },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

export async function walletRoutes(app: FastifyInstance): Promise<void> {
  const withBalances = async (w: Wallet) => walletJson(w, await app.ledger.balances(w.id));

  app.post<{ Body: { name: string; metadata?: unknown } }>(
    '/wallets',
    {
      schema: {
        tags: ['wallets'],
        summary: 'Create a wallet',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, metadata: metadataSchema },
        },
        response: { 200: walletSchema, ...errors(400, 401, 403, 502) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      if (p.walletRestriction)
        throw forbidden(`this API key is restricted to wallet ${p.walletRestriction} and cannot create wallets`);
      checkMetadata(request.body.metadata);
      const wallet = await app.db.transaction(async (tx) => {
        const w = await createWallet(tx, p.userId, request.body.name, request.body.metadata);
        await recordAudit(tx, {
          userId: p.userId,
          action: 'wallet.created',
          targetType: 'wallet',
          targetId: w.id,
          ip: request.ip,
        });
        return w;
      });
      return walletJson(wallet, []);
    },
  );

  app.get<{ Querystring: { include_archived?: boolean } }>(
    '/wallets',
    {
      schema: {
        tags: ['wallets'],
        summary: 'List your wallets (archived ones only with include_archived=true)',
        querystring: { type: 'object', properties: { include_archived: { type: 'boolean', default: false } } },
        response: {
          200: { type: 'object', properties: { wallets: { type: 'array', items: walletSchema } } },
          ...errors(401, 502),
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const wallets = await listWallets(app.db, p.userId, {
        includeArchived: request.query.include_archived ?? false,
        onlyId: p.walletRestriction,
      });
      const balances = await app.ledger.balancesOf(wallets.map((w) => w.id));
      return { wallets: wallets.map((w) => walletJson(w, balances.get(w.id)!)) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/wallets/:id',
    {
      schema: {
        tags: ['wallets'],
        summary: 'Wallet detail with balances',
        params: idParams,
        response: { 200: walletSchema, ...errors(401, 404, 502) },
      },
    },
    async (request) => withBalances(await ownedWallet(request, request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: { name?: string | null; metadata?: unknown } }>(
    '/wallets/:id',
    {
      schema: {
        tags: ['wallets'],
        summary: 'Rename a wallet or replace its metadata (omitted or null name: unchanged; metadata given: replaced)',
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: ['string', 'null'], minLength: 1, maxLength: 200 }, metadata: metadataSchema },
        },
        response: { 200: walletSchema, ...errors(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const wallet = await ownedWallet(request, request.params.id);
      checkMetadata(request.body?.metadata);
      return withBalances(await updateWallet(app.db, wallet.id, request.body ?? {}));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/wallets/:id',
    {
      schema: {
        tags: ['wallets'],
        summary: 'Archive a wallet; only when every balance (BTC and each RGB asset) is zero',
        params: idParams,
        response: { 200: walletSchema, ...errors(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const wallet = await ownedWallet(request, request.params.id);
      const archived = await app.db.transaction(async (tx) => {
        const w = await archiveWallet(tx, wallet.id);
        await recordAudit(tx, {
          userId: p.userId,
          action: 'wallet.archived',
          targetType: 'wallet',
          targetId: w.id,
          ip: request.ip,
        });
        return w;
      });
      return withBalances(archived);
    },
  );

  app.get<{ Params: { id: string }; Querystring: PageQuery }>(
    '/wallets/:id/transactions',
    {
      schema: {
        tags: ['wallets'],
        summary: 'Payments of the wallet, newest first, by cursor (id as text < before)',
        params: idParams,
        querystring: pageQuery,
        response: {
          200: {
            type: 'object',
            properties: { items: { type: 'array', items: paymentSchema }, next_before: { type: ['string', 'null'] } },
          },
          ...errors(400, 401, 404, 502),
        },
      },
    },
    async (request) => {
      const wallet = await ownedWallet(request, request.params.id);
      const items = (await app.ledger.listPayments(wallet.id, request.query)).map(paymentJson);
      return { items, next_before: nextCursor(items, request.query.limit) };
    },
  );
}
