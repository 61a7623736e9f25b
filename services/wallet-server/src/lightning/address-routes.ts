import type { FastifyInstance } from 'fastify';
import { amountSchema, parseAmount } from '../amounts.js';
import { ownedWallet } from '../auth/wallet-access.js';
import { invalid, notFound } from '../errors.js';
import { errors, idParams } from '../schemas.js';
import {
  USERNAME_PATTERN,
  type LightningAddress,
  type LightningAddresses,
  type WithdrawSettings,
} from './addresses.js';
import type { PublicUrls } from './public-url.js';
import { MIN_WITHDRAWABLE_MSAT } from './rules.js';

interface WithdrawBody {
  enabled: boolean;
  max_msat_per_withdraw?: number | string;
  budget_msat?: number | string;
}

interface ClaimBody {
  username: string;
  withdraw?: WithdrawBody;
}

/** A withdraw limit, when given, at least the smallest withdraw: a smaller one would allow nothing. */
function withdrawLimit(value: number | string | undefined, field: keyof WithdrawBody): bigint {
  if (value === undefined) return 0n;
  const msat = parseAmount(value, `withdraw.${field}`);
  if (msat < MIN_WITHDRAWABLE_MSAT) {
    throw invalid(
      'INVALID_AMOUNT',
      `withdraw.${field} must be at least ${MIN_WITHDRAWABLE_MSAT} msat (the smallest withdraw); to turn LNURL-withdraw off send "enabled": false`,
    );
  }
  return msat;
}

/** LNURL-withdraw settings of a claim: off unless enabled, and enabling it needs both limits. */
function withdrawSettings(w: WithdrawBody | undefined): WithdrawSettings {
  if (w?.enabled && (w.max_msat_per_withdraw === undefined || w.budget_msat === undefined)) {
    throw invalid(
      'INVALID_AMOUNT',
      'enabling LNURL-withdraw needs max_msat_per_withdraw and budget_msat (msat, each at least 1000)',
    );
  }
  return {
    enabled: w?.enabled ?? false,
    maxMsat: withdrawLimit(w?.max_msat_per_withdraw, 'max_msat_per_withdraw'),
    budgetMsat: withdrawLimit(w?.budget_msat, 'budget_msat'),
  };
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
        const withdraw = withdrawSettings(request.body.withdraw);
        const wallet = await ownedWallet(request, request.params.id);
        return json(await addresses.claim(wallet.id, request.body.username, withdraw));
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
