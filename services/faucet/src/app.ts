import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../lib/project-root.js';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { notFound } from '../../../lib/errors.js';
import { errorResponseSchema as errorSchema } from '../../../lib/http/errors.js';
import { installMetrics } from '../../../lib/http/metrics.js';
import { createService } from '../../../lib/http/service.js';
import type { AssetFaucet } from './asset-faucet.js';
import { ClaimMetrics } from './claim-metrics.js';
import type { Faucet } from './faucet.js';

// from the source folder whether running from src/ (tsx) or from dist/ (the page is not compiled)
const PUBLIC = join(projectRoot(), 'services', 'faucet', 'public');
const PAGE = readFileSync(join(PUBLIC, 'index.html'), 'utf8');
const FAVICON = readFileSync(join(PUBLIC, 'favicon.svg'));

export interface FaucetAppOptions {
  faucet: Faucet;
  /** Gives one of the lab's RGB assets too, when set. */
  assetFaucet?: AssetFaucet;
  logger?: FastifyServerOptions['logger'];
  /** Fastify's trustProxy: which proxies' X-Forwarded-For to believe for the client IP (default: none). */
  trustProxy?: FastifyServerOptions['trustProxy'];
}

const claimSchema = {
  type: 'object',
  required: ['txid', 'amount_sat', 'address', 'block_hash', 'block_height'],
  properties: {
    txid: { type: 'string' },
    amount_sat: { type: 'integer' },
    address: { type: 'string' },
    block_hash: { type: 'string' },
    block_height: { type: 'integer' },
  },
} as const;

const assetClaimSchema = {
  type: 'object',
  required: ['txid', 'asset_id', 'ticker', 'amount', 'recipient_id', 'block_hash', 'block_height'],
  properties: {
    txid: { type: 'string' },
    asset_id: { type: 'string' },
    ticker: { type: 'string', description: "the lab's name of the asset" },
    amount: { type: 'integer', description: "in the asset's smallest unit" },
    recipient_id: { type: 'string', description: "the invoice's recipient (blinded UTXO or witness script)" },
    block_hash: { type: 'string' },
    block_height: { type: 'integer' },
  },
} as const;

const assetStatusSchema = {
  type: ['object', 'null'],
  description: 'the RGB asset this faucet gives, or null when it gives none',
  required: ['ticker', 'asset_id', 'claim_amount', 'balance'],
  properties: {
    ticker: { type: 'string' },
    asset_id: { type: 'string' },
    claim_amount: { type: 'integer', description: "per claim, in the asset's smallest unit" },
    balance: {
      type: 'object',
      description: "the faucet node's balance of the asset",
      required: ['settled', 'future', 'spendable'],
      properties: { settled: { type: 'integer' }, future: { type: 'integer' }, spendable: { type: 'integer' } },
    },
  },
} as const;

const statusSchema = {
  type: 'object',
  required: [
    'network',
    'balance_sat',
    'pending_balance_sat',
    'claim_amount_sat',
    'cooldown_seconds',
    'height',
    'mining',
    'adapter_url',
    'asset',
  ],
  properties: {
    network: { type: 'string' },
    balance_sat: { type: 'integer', description: 'confirmed balance of the faucet wallet' },
    pending_balance_sat: { type: 'integer', description: 'unconfirmed incoming balance' },
    claim_amount_sat: { type: 'integer' },
    cooldown_seconds: { type: 'integer', description: 'per client IP and per address' },
    height: { type: 'integer' },
    mining: { type: 'string', enum: ['lab-queue', 'direct'] },
    adapter_url: { type: ['string', 'null'], description: 'the chain-data adapter the page links transactions to' },
    asset: assetStatusSchema,
  },
} as const;

/** IPv4-mapped IPv6 peers are keyed as plain IPv4, so one client has one cool-down. */
const clientIpOf = (request: FastifyRequest) => request.ip.replace(/^::ffff:/, '');

export async function buildApp(options: FaucetAppOptions): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab faucet',
    description:
      'Sends regtest coins to a bcrt1 address, and a lab RGB asset to an RGB invoice, and mines a block so they confirm.',
    version: '0.1.0',
    logger: options.logger ?? false,
    cors: true,
    trustProxy: options.trustProxy,
  });
  const claims = new ClaimMetrics(installMetrics(app));
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/favicon.svg', { schema: { hide: true } }, (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'max-age=86400').send(FAVICON),
  );
  app.get(
    '/api/status',
    {
      schema: {
        tags: ['faucet'],
        summary: 'Faucet balance, claim amount, cool-down, chain height, and the asset it gives',
        response: { 200: statusSchema, 502: errorSchema },
      },
    },
    async () => {
      const [status, asset] = await Promise.all([options.faucet.status(), options.assetFaucet?.status() ?? null]);
      return { ...status, asset };
    },
  );
  app.post(
    '/api/claim',
    {
      schema: {
        tags: ['faucet'],
        summary: 'Send the claim amount to a regtest bech32/bech32m address, then mine one block',
        body: {
          type: 'object',
          required: ['address'],
          additionalProperties: false,
          properties: {
            address: {
              type: 'string',
              minLength: 1,
              maxLength: 120,
              description: 'regtest address, bcrt1q... or bcrt1p...',
            },
          },
        },
        response: { 200: claimSchema, 400: errorSchema, 429: errorSchema, 502: errorSchema, 503: errorSchema },
      },
    },
    async (request) => {
      const clientIp = clientIpOf(request);
      const paid = await claims.count('btc', () =>
        options.faucet.claim((request.body as { address: string }).address, clientIp),
      );
      claims.sent(paid.amount_sat);
      request.log.info(
        { clientIp, address: paid.address, txid: paid.txid, blockHeight: paid.block_height },
        'claim paid',
      );
      return paid;
    },
  );
  app.post(
    '/api/claim-asset',
    {
      schema: {
        tags: ['faucet'],
        summary: "Send the faucet's RGB asset to an RGB invoice (blinded or witness), then mine one block",
        body: {
          type: 'object',
          required: ['invoice'],
          additionalProperties: false,
          properties: {
            invoice: {
              type: 'string',
              minLength: 1,
              maxLength: 4000,
              description:
                'an RGB invoice, rgb:...; open to any asset and amount, or naming this asset and at most the claim amount',
            },
          },
        },
        response: {
          200: assetClaimSchema,
          400: errorSchema,
          404: errorSchema,
          429: errorSchema,
          502: errorSchema,
          503: errorSchema,
        },
      },
    },
    async (request) => {
      const { assetFaucet } = options;
      if (!assetFaucet)
        throw notFound(
          'this faucet gives no RGB asset (a lab gives one with services.faucet.asset in lab.yaml)',
          'NO_ASSET_OFFERED',
        );
      const clientIp = clientIpOf(request);
      const paid = await claims.count('asset', () =>
        assetFaucet.claim((request.body as { invoice: string }).invoice, clientIp),
      );
      request.log.info(
        {
          clientIp,
          recipientId: paid.recipient_id,
          ticker: paid.ticker,
          amount: paid.amount,
          txid: paid.txid,
          blockHeight: paid.block_height,
        },
        'asset claim paid',
      );
      return paid;
    },
  );
  return app;
}
