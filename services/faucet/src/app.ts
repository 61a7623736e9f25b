import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../lib/project-root.js';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { errorResponseSchema as errorSchema } from '../../../lib/http/errors.js';
import { createService } from '../../../lib/http/service.js';
import type { Faucet } from './faucet.js';

// from the source folder whether running from src/ (tsx) or from dist/ (the page is not compiled)
const PUBLIC = join(projectRoot(), 'services', 'faucet', 'public');
const PAGE = readFileSync(join(PUBLIC, 'index.html'), 'utf8');
const FAVICON = readFileSync(join(PUBLIC, 'favicon.svg'));

export interface FaucetAppOptions {
  faucet: Faucet;
  logger?: FastifyServerOptions['logger'];
  /** Fastify's trustProxy: which proxies' X-Forwarded-For to believe for the client IP (default: none). */
  trustProxy?: FastifyServerOptions['trustProxy'];
}

const claimSchema = {
  type: 'object',
  required: ['txid', 'amount_sat', 'address', 'block_hash', 'block_height'],
  properties: { txid: { type: 'string' }, amount_sat: { type: 'integer' }, address: { type: 'string' }, block_hash: { type: 'string' }, block_height: { type: 'integer' } },
} as const;

const statusSchema = {
  type: 'object',
  required: ['network', 'balance_sat', 'pending_balance_sat', 'claim_amount_sat', 'cooldown_seconds', 'height', 'mining', 'adapter_url'],
  properties: {
    network: { type: 'string' },
    balance_sat: { type: 'integer', description: 'confirmed balance of the faucet wallet' },
    pending_balance_sat: { type: 'integer', description: 'unconfirmed incoming balance' },
    claim_amount_sat: { type: 'integer' },
    cooldown_seconds: { type: 'integer', description: 'per client IP and per address' },
    height: { type: 'integer' },
    mining: { type: 'string', enum: ['lab-queue', 'direct'] },
    adapter_url: { type: ['string', 'null'], description: 'the chain-data adapter the page links transactions to' },
  },
} as const;

export async function buildApp(options: FaucetAppOptions): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab faucet',
    description: 'Sends regtest coins to a bcrt1 address and mines a block so they confirm.',
    version: '0.1.0',
    logger: options.logger ?? false,
    cors: true,
    trustProxy: options.trustProxy,
  });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/favicon.svg', { schema: { hide: true } }, (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'max-age=86400').send(FAVICON));
  app.get('/api/status', { schema: { tags: ['faucet'], summary: 'Faucet balance, claim amount, cool-down and chain height', response: { 200: statusSchema } } }, () =>
    options.faucet.status(),
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
          properties: { address: { type: 'string', minLength: 1, maxLength: 120, description: 'regtest address, bcrt1q... or bcrt1p...' } },
        },
        response: { 200: claimSchema, 400: errorSchema, 429: errorSchema, 502: errorSchema, 503: errorSchema },
      },
    },
    async (request) => {
      const clientIp = request.ip.replace(/^::ffff:/, '');
      const paid = await options.faucet.claim((request.body as { address: string }).address, clientIp);
      request.log.info({ clientIp, address: paid.address, txid: paid.txid, blockHeight: paid.block_height }, 'claim paid');
      return paid;
    },
  );
  return app;
}
