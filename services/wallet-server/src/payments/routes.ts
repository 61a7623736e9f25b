import type { FastifyInstance } from 'fastify';
import { parseAmount, amountSchema } from '../amounts.js';
import { principalOf } from '../auth/hook.js';
import { walletFromHeader, walletKeyHeaderSchema } from '../auth/wallet-access.js';
import { invalid, notFound } from '../errors.js';
import { keyClaim, once, withIdempotencyKey } from '../idempotency/requests.js';
import { paymentJson, paymentSchema, type Asset, type Transfer } from '../ledger/index.js';
import { errors, uuidParams, uuidString } from '../schemas.js';

interface InternalBody {
  from_wallet_id: string;
  to_wallet_id: string;
  asset_kind: 'btc' | 'rgb';
  amount_msat?: number | string | null;
  asset_id?: string | null;
  asset_amount?: string | null;
}

/** asset_kind 'btc' moves amount_msat; 'rgb' moves asset_amount of asset_id. */
function transferAsset(body: InternalBody): { asset: Asset; amount: bigint } {
  if (body.asset_kind === 'btc') {
    if (body.amount_msat === undefined || body.amount_msat === null)
      throw invalid('INVALID_AMOUNT', 'asset_kind "btc" needs amount_msat');
    return { asset: { kind: 'btc' }, amount: parseAmount(body.amount_msat, 'amount_msat') };
  }
  if (!body.asset_id) throw invalid('INVALID_ASSET', 'asset_kind "rgb" needs asset_id');
  if (body.asset_amount === undefined || body.asset_amount === null)
    throw invalid('INVALID_AMOUNT', 'asset_kind "rgb" needs asset_amount');
  return { asset: { kind: 'rgb', assetId: body.asset_id }, amount: parseAmount(body.asset_amount, 'asset_amount') };
}

const transferJson = (t: Transfer) => ({
  transfer_id: t.transferId,
  status: 'succeeded',
  out: paymentJson(t.out),
  in: paymentJson(t.in),
});

export async function paymentRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: InternalBody }>(
    '/payments/internal',
    {
      schema: {
        tags: ['payments'],
        summary:
          'Move funds between two of your wallets (BTC in msat, or an RGB asset amount); with Idempotency-Key, sent again it answers the first transfer',
        headers: withIdempotencyKey(),
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['from_wallet_id', 'to_wallet_id', 'asset_kind'],
          properties: {
            from_wallet_id: uuidString,
            to_wallet_id: uuidString,
            asset_kind: { type: 'string', enum: ['btc', 'rgb'] },
            amount_msat: { anyOf: [...amountSchema.anyOf, { type: 'null' }] },
            asset_id: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
            asset_amount: { type: ['string', 'null'], pattern: '^[0-9]{1,19}$' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              transfer_id: { type: 'string' },
              status: { type: 'string' },
              out: paymentSchema,
              in: paymentSchema,
            },
          },
          ...errors(400, 401, 403, 404, 409, 502),
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const body = request.body;
      // one wallet whatever the case of its id: a transfer to the same wallet in upper case is SAME_WALLET
      const from = body.from_wallet_id.toLowerCase();
      const to = body.to_wallet_id.toLowerCase();
      const { asset, amount } = transferAsset(body);
      // A wallet-restricted key may send from its wallet to any wallet of the same user. Ownership
      // of both wallets is checked inside the transfer statement (404 when either is not the caller's).
      if (p.walletRestriction && p.walletRestriction !== from) throw notFound(`wallet ${body.from_wallet_id}`);
      const claim = keyClaim(request, [from, to, asset, amount.toString()]);
      const transfer = await once(
        app.idempotencyKeys,
        claim,
        reply,
        async (transferId) => (await app.ledger.getTransfer(transferId))!,
        () =>
          app.idempotencyKeys.record(
            claim,
            (ledger) =>
              ledger.transferInternal({
                fromWalletId: from,
                toWalletId: to,
                ownerId: p.userId,
                asset,
                amount,
                audit: {
                  userId: p.userId,
                  action: 'payment.internal',
                  targetType: 'wallet',
                  targetId: from,
                  ip: request.ip,
                  details: {
                    to_wallet_id: to,
                    asset_kind: asset.kind,
                    asset_id: asset.kind === 'rgb' ? asset.assetId : null,
                    amount: amount.toString(),
                  },
                },
              }),
            (t) => t.transferId,
          ),
      );
      return transferJson(transfer);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/payments/:id',
    {
      schema: {
        tags: ['payments'],
        summary: 'A payment record of the wallet named by x-service-wallet-key',
        params: uuidParams,
        headers: walletKeyHeaderSchema,
        response: { 200: paymentSchema, ...errors(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const wallet = await walletFromHeader(request);
      const payment = await app.ledger.getPayment(request.params.id, wallet.id);
      if (!payment) throw notFound(`payment ${request.params.id} in wallet ${wallet.id}`);
      return paymentJson(payment);
    },
  );
}
