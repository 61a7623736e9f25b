import type { FastifyInstance, FastifyRequest } from 'fastify';
import { amountSchema, parseAmount } from '../amounts.js';
import type { AuditEvent } from '../audit/audit.js';
import { principalOf } from '../auth/hook.js';
import { isValidPubkey, PUBKEY_PATTERN } from '../auth/keys.js';
import { walletFromHeader, walletKeyHeaderSchema } from '../auth/wallet-access.js';
import { invalid, notFound } from '../errors.js';
import { keyClaim, once, withIdempotencyKey } from '../idempotency/requests.js';
import { paymentJson, paymentSchema } from '../ledger/index.js';
import { errors } from '../schemas.js';
import { normalizeBolt11 } from '../../../../lib/lightning/bolt11.js';
import type { IncomingInvoices } from './incoming.js';
import type { OutgoingPayments } from './outgoing.js';
import { DEFAULT_EXPIRY_SEC, MAX_EXPIRY_SEC } from './rules.js';

interface InvoiceBody {
  amount_msat: number | string;
  asset_id?: string | null;
  asset_amount?: number | string | null;
  expiry_sec?: number | null;
  description?: string | null;
}

const invoiceResponse = {
  type: 'object',
  properties: {
    payment_request: { type: 'string' },
    payment_hash: { type: 'string' },
    expires_at: { type: 'string' },
    payment: paymentSchema,
  },
} as const;

export const paymentHashSchema = { type: 'string', pattern: '^[0-9a-fA-F]{64}$' } as const;

function audit(
  request: FastifyRequest,
  action: string,
  walletId: string,
  details: Record<string, unknown>,
): AuditEvent {
  return {
    userId: principalOf(request).userId,
    action,
    targetType: 'wallet',
    targetId: walletId,
    ip: request.ip,
    details,
  };
}

export function paymentRoutes(incoming: IncomingInvoices, outgoing: OutgoingPayments) {
  return async (app: FastifyInstance): Promise<void> => {
    /** The payment an Idempotency-Key made, answered again. */
    const paymentOf = async (paymentId: string, walletId: string) =>
      (await app.ledger.getPayment(paymentId, walletId))!;

    app.post<{ Body: InvoiceBody }>(
      '/payments/invoices',
      {
        config: { scope: 'invoice' },
        schema: {
          tags: ['payments'],
          summary: `Create a BOLT11 invoice for the wallet in x-service-wallet-key (expiry default ${DEFAULT_EXPIRY_SEC} s, at most ${MAX_EXPIRY_SEC} s; asset_id + asset_amount need an RGB node and amount_msat >= 3000000)`,
          headers: walletKeyHeaderSchema,
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['amount_msat'],
            properties: {
              amount_msat: amountSchema,
              asset_id: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
              asset_amount: { anyOf: [...amountSchema.anyOf, { type: 'null' }] },
              expiry_sec: { type: ['integer', 'null'], minimum: 1, maximum: MAX_EXPIRY_SEC },
              description: { type: ['string', 'null'], maxLength: 639 },
            },
          },
          response: { 200: invoiceResponse, ...errors(400, 401, 403, 502) },
        },
      },
      async (request) => {
        const wallet = await walletFromHeader(request);
        const b = request.body;
        if ((b.asset_id == null) !== (b.asset_amount == null)) {
          throw invalid('INVALID_ASSET', 'asset_id and asset_amount go together: give both or neither');
        }
        const amountMsat = parseAmount(b.amount_msat, 'amount_msat');
        const asset =
          b.asset_id != null ? { assetId: b.asset_id, amount: parseAmount(b.asset_amount, 'asset_amount') } : undefined;
        if (asset?.amount === 0n)
          throw invalid(
            'INVALID_AMOUNT',
            'asset_amount must be greater than 0; for an invoice of bitcoin alone leave asset_id and asset_amount out',
          );
        const p = await incoming.create(
          {
            walletId: wallet.id,
            amountMsat,
            expirySec: b.expiry_sec ?? DEFAULT_EXPIRY_SEC,
            description: b.description ?? undefined,
            asset,
          },
          audit(request, 'payment.invoice_created', wallet.id, {
            amount_msat: amountMsat.toString(),
            asset_id: asset?.assetId ?? null,
            asset_amount: asset?.amount.toString() ?? null,
          }),
        );
        return {
          payment_request: p.bolt11,
          payment_hash: p.paymentHash,
          expires_at: p.expiresAt?.toISOString(),
          payment: paymentJson(p),
        };
      },
    );

    app.get<{ Params: { hash: string } }>(
      '/payments/invoices/:hash',
      {
        schema: {
          tags: ['payments'],
          summary:
            'The payment with this payment hash in the wallet of x-service-wallet-key (an invoice is refreshed from the node first)',
          headers: walletKeyHeaderSchema,
          params: { type: 'object', required: ['hash'], properties: { hash: paymentHashSchema } },
          response: { 200: paymentSchema, ...errors(400, 401, 404, 502) },
        },
      },
      async (request) => {
        const wallet = await walletFromHeader(request);
        const p = await app.ledger.findByHash(request.params.hash.toLowerCase(), wallet.id);
        if (!p) throw notFound(`payment with hash ${request.params.hash} in wallet ${wallet.id}`);
        return paymentJson(await incoming.refresh(p));
      },
    );

    app.post<{ Body: { invoice: string } }>(
      '/payments/pay',
      {
        schema: {
          tags: ['payments'],
          summary:
            'Pay a BOLT11 invoice (with an amount, on this network) from the wallet of x-service-wallet-key; reserves amount + fee limit max(1%, 10 sat). Status pending means the node has not answered yet. With Idempotency-Key, sent again it answers the first payment',
          headers: withIdempotencyKey(walletKeyHeaderSchema),
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['invoice'],
            properties: { invoice: { type: 'string', minLength: 1, maxLength: 7089 } },
          },
          response: { 200: paymentSchema, ...errors(400, 401, 403, 409, 502) },
        },
      },
      async (request, reply) => {
        const wallet = await walletFromHeader(request);
        const invoice = normalizeBolt11(request.body.invoice);
        const claim = keyClaim(request, [wallet.id, invoice]);
        const p = await once(
          app.idempotencyKeys,
          claim,
          reply,
          (paymentId) => paymentOf(paymentId, wallet.id),
          () => outgoing.payInvoice(wallet.id, invoice, audit(request, 'payment.pay', wallet.id, {}), claim),
        );
        return paymentJson(p);
      },
    );

    app.post<{ Body: { dest_pubkey: string; amount_msat: number | string } }>(
      '/payments/keysend',
      {
        schema: {
          tags: ['payments'],
          summary:
            "Keysend amount_msat to a node pubkey from the wallet of x-service-wallet-key (fee limit max(1%, 10 sat); not to this server's own node). With Idempotency-Key, sent again it answers the first keysend",
          headers: withIdempotencyKey(walletKeyHeaderSchema),
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['dest_pubkey', 'amount_msat'],
            properties: {
              dest_pubkey: {
                type: 'string',
                pattern: PUBKEY_PATTERN,
                description: '33-byte compressed secp256k1 public key, hex',
              },
              amount_msat: amountSchema,
            },
          },
          response: { 200: paymentSchema, ...errors(400, 401, 403, 409, 502) },
        },
      },
      async (request, reply) => {
        const wallet = await walletFromHeader(request);
        if (!isValidPubkey(request.body.dest_pubkey))
          throw invalid(
            'INVALID_PUBKEY',
            "dest_pubkey is not a point on secp256k1; send the node's 33-byte compressed public key",
          );
        const destPubkey = request.body.dest_pubkey.toLowerCase();
        const amount = parseAmount(request.body.amount_msat, 'amount_msat');
        const claim = keyClaim(request, [wallet.id, destPubkey, amount.toString()]);
        const p = await once(
          app.idempotencyKeys,
          claim,
          reply,
          (paymentId) => paymentOf(paymentId, wallet.id),
          () =>
            outgoing.keysend(
              wallet.id,
              destPubkey,
              amount,
              audit(request, 'payment.keysend', wallet.id, { dest_pubkey: destPubkey, amount_msat: amount.toString() }),
              claim,
            ),
        );
        return paymentJson(p);
      },
    );
  };
}
