import type { FastifyInstance } from 'fastify';
import { amountSchema, parseAmount } from '../amounts.js';
import { ownedWallet } from '../auth/wallet-access.js';
import { notFound } from '../errors.js';
import { errors, idParams } from '../schemas.js';
import { USERNAME_PATTERN, type LightningAddress, type LightningAddresses } from './addresses.js';
import type { PublicUrls } from './public-url.js';

interface ClaimBody {
  username: string;
  withdraw?: { enabled: boolean; max_msat_per_withdraw?: number | string; budget_msat?: number | string };
}

const addressSchema = {
  type: 'object',
  properties: {
    username: { type: 'string' },
    wallet_id: { type: 'string' },
    lightning_address: { type: 'string' },
    lnurlp_url: { type: 'string' },
    lnurlw_url: { type: ['string', 'null'] },
    withdraw: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean' },
        max_msat_per_withdraw: { type: 'string' },
        budget_msat: { type: 'string' },
        spent_msat: { type: 'string' },
      },
    },
  },
} as const;

export function addressRoutes(addresses: LightningAddresses, urls: PublicUrls) {
  const json = (a: LightningAddress) => ({
    username: a.username,
    wallet_id: a.walletId,
    lightning_address: urls.address(a.username),
    lnurlp_url: urls.lnurlp(a.username),
    lnurlw_url: a.withdrawEnabled ? urls.lnurlw(a.username) : null,
    withdraw: {
      enabled: a.withdrawEnabled,
      max_msat_per_withdraw: a.withdrawMaxMsat.toString(),
      budget_msat: a.withdrawBudgetMsat.toString(),
      spent_msat: a.withdrawSpentMsat.toString(),
    },
  });

  return async (app: FastifyInstance): Promise<void> => {
    app.put<{ Params: { id: string }; Body: ClaimBody }>(
      '/wallets/:id/lightning-address',
      {
        schema: {
          tags: ['lnurl'],
          summary:
            'Claim a username (lightning address username@domain of PUBLIC_URL) for this wallet, replacing its previous one, and set LNURL-withdraw (off unless enabled; budget_msat is the total it may ever spend)',
          params: idParams,
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['username'],
            properties: {
              username: { type: 'string', pattern: USERNAME_PATTERN },
              withdraw: {
                type: 'object',
                additionalProperties: false,
                required: ['enabled'],
                properties: {
                  enabled: { type: 'boolean' },
                  max_msat_per_withdraw: amountSchema,
                  budget_msat: amountSchema,
                },
              },
            },
          },
          response: { 200: addressSchema, ...errors(400, 401, 403, 404, 409, 502) },
        },
      },
      async (request) => {
        const wallet = await ownedWallet(request, request.params.id);
        const w = request.body.withdraw;
        const address = await addresses.claim(wallet.id, request.body.username, {
          enabled: w?.enabled ?? false,
          maxMsat:
            w?.max_msat_per_withdraw === undefined
              ? 0n
              : parseAmount(w.max_msat_per_withdraw, 'withdraw.max_msat_per_withdraw'),
          budgetMsat: w?.budget_msat === undefined ? 0n : parseAmount(w.budget_msat, 'withdraw.budget_msat'),
        });
        return json(address);
      },
    );

    app.get<{ Params: { id: string } }>(
      '/wallets/:id/lightning-address',
      {
        schema: {
          tags: ['lnurl'],
          summary: "This wallet's lightning address and withdraw settings",
          params: idParams,
          response: { 200: addressSchema, ...errors(401, 404, 502) },
        },
      },
      async (request) => {
        const wallet = await ownedWallet(request, request.params.id);
        const address = await addresses.byWallet(wallet.id);
        if (!address) throw notFound(`lightning address of wallet ${wallet.id}`);
        return json(address);
      },
    );

    app.delete<{ Params: { id: string } }>(
      '/wallets/:id/lightning-address',
      {
        schema: {
          tags: ['lnurl'],
          summary: "Release this wallet's username (its LNURL-pay and withdraw links stop working)",
          params: idParams,
          response: {
            200: { type: 'object', properties: { released: { type: 'boolean' } } },
            ...errors(401, 403, 404, 502),
          },
        },
      },
      async (request) => {
        const wallet = await ownedWallet(request, request.params.id);
        if (!(await addresses.release(wallet.id))) throw notFound(`lightning address of wallet ${wallet.id}`);
        return { released: true };
      },
    );
  };
}
