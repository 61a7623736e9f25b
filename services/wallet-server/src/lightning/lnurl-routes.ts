// LNURL-pay (LUD-06, LUD-16) and LNURL-withdraw (LUD-03) for claimed usernames. Public routes.
// Every refusal here answers in LUD's shape, {"status":"ERROR","reason":…}, which LNURL wallets
// read; HTTP errors (4xx/5xx) also carry reglab's {"error":{code,message}}.
import { createHash } from 'node:crypto';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { httpAnswerFor } from '../../../../lib/http/errors.js';
import { DomainError, invalid, mapWalletServerError, notFound } from '../errors.js';
import type { LightningAddresses } from './addresses.js';
import { decodeBolt11 } from './bolt11.js';
import type { IncomingInvoices } from './incoming.js';
import type { OutgoingPayments } from './outgoing.js';
import type { PublicUrls } from './public-url.js';
import { DEFAULT_EXPIRY_SEC, largestPayable, MIN_WITHDRAWABLE_MSAT } from './rules.js';

/** LNURL-pay bounds: 1 sat to 10,000,000 sat (0.1 BTC). */
export const MIN_SENDABLE_MSAT = 1_000n;
export const MAX_SENDABLE_MSAT = 10_000_000_000n;

const usernameParams = {
  type: 'object',
  required: ['username'],
  properties: { username: { type: 'string', maxLength: 64 } },
} as const;
const lnurlError = {
  type: 'object',
  required: ['status', 'reason'],
  properties: { status: { type: 'string', enum: ['ERROR'] }, reason: { type: 'string' } },
} as const;
const lnurlOk = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['OK', 'ERROR'] }, reason: { type: 'string' } },
} as const;
/** An HTTP error of an LNURL route: LUD's status and reason, and reglab's error object. */
const lnurlHttpError = {
  type: 'object',
  required: ['error'],
  properties: {
    status: { type: 'string', enum: ['ERROR'] },
    reason: { type: 'string' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      additionalProperties: true,
    },
  },
} as const;
const lnurlErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, lnurlHttpError]));

const errorReply = (reason: string) => ({ status: 'ERROR' as const, reason });

/** The callback's amount (msat, decimal digits) within the LNURL-pay bounds; 400 otherwise. */
function sendableAmount(raw: string | undefined): bigint {
  const msat = raw !== undefined && /^[0-9]{1,20}$/.test(raw) ? BigInt(raw) : undefined;
  if (msat === undefined || msat < MIN_SENDABLE_MSAT || msat > MAX_SENDABLE_MSAT) {
    throw invalid(
      'INVALID_AMOUNT',
      `amount must be a whole number of msat between ${MIN_SENDABLE_MSAT} and ${MAX_SENDABLE_MSAT}`,
    );
  }
  return msat;
}

export interface LnurlDeps {
  addresses: LightningAddresses;
  incoming: IncomingInvoices;
  outgoing: OutgoingPayments;
  urls: PublicUrls;
}

export function lnurlRoutes({ addresses, incoming, outgoing, urls }: LnurlDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    // LUD-01: browser wallets call these from any origin (this plugin's routes only).
    await app.register(cors, { origin: '*', methods: ['GET'] });
    app.setErrorHandler((error, request, reply) => {
      const answer = httpAnswerFor((error instanceof Error && mapWalletServerError(error)) || error);
      if (!answer) request.log.error({ err: error }, 'request failed');
      const { status, headers, body } = answer ?? {
        status: 500,
        headers: {},
        body: { error: { code: 'INTERNAL', message: 'internal error; the service log says more' } },
      };
      return reply
        .status(status)
        .headers(headers)
        .send({ ...errorReply(body.error.message), ...body });
    });
    const known = async (username: string) => {
      const address = await addresses.byUsername(username.toLowerCase());
      if (!address) throw notFound(`lightning address ${urls.address(username)}`);
      return address;
    };

    app.get<{ Params: { username: string } }>(
      '/.well-known/lnurlp/:username',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['lnurl'],
          summary: 'LNURL-pay (LUD-06/16) parameters of a lightning address',
          params: usernameParams,
          response: {
            200: {
              type: 'object',
              properties: {
                tag: { type: 'string' },
                callback: { type: 'string' },
                minSendable: { type: 'integer' },
                maxSendable: { type: 'integer' },
                metadata: { type: 'string' },
                commentAllowed: { type: 'integer' },
              },
            },
            ...lnurlErrors(400, 404, 500, 502),
          },
        },
      },
      async (request) => {
        const { username } = await known(request.params.username);
        return {
          tag: 'payRequest',
          callback: urls.payCallback(username),
          minSendable: Number(MIN_SENDABLE_MSAT),
          maxSendable: Number(MAX_SENDABLE_MSAT),
          metadata: urls.payMetadata(username),
          commentAllowed: 0,
        };
      },
    );

    app.get<{ Params: { username: string }; Querystring: { amount?: string } }>(
      '/lnurlp/:username/callback',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['lnurl'],
          summary: `LNURL-pay callback: a BOLT11 invoice of \`amount\` msat (${MIN_SENDABLE_MSAT} to ${MAX_SENDABLE_MSAT}) whose description hash is sha256(metadata), paying the wallet of the username`,
          params: usernameParams,
          querystring: {
            type: 'object',
            properties: { amount: { type: 'string', maxLength: 40, description: 'msat, decimal digits' } },
          },
          response: {
            200: {
              type: 'object',
              required: ['pr', 'routes'],
              properties: { pr: { type: 'string' }, routes: { type: 'array', maxItems: 0 } },
            },
            ...lnurlErrors(400, 404, 500, 502),
          },
        },
      },
      async (request) => {
        const address = await known(request.params.username);
        const msat = sendableAmount(request.query.amount);
        const p = await incoming.create({
          walletId: address.walletId,
          amountMsat: msat,
          expirySec: DEFAULT_EXPIRY_SEC,
          description: `LNURL-pay to ${urls.address(address.username)}`,
          descriptionHash: createHash('sha256').update(urls.payMetadata(address.username), 'utf8').digest('hex'),
        });
        return { pr: p.bolt11, routes: [] };
      },
    );

    app.get<{ Params: { username: string } }>(
      '/lnurlw/:username',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['lnurl'],
          summary: 'LNURL-withdraw (LUD-03) parameters with a fresh one-time k1; 404 unless the owner enabled withdraw',
          params: usernameParams,
          response: {
            200: {
              anyOf: [
                {
                  type: 'object',
                  required: ['tag', 'k1'],
                  properties: {
                    tag: { type: 'string' },
                    callback: { type: 'string' },
                    k1: { type: 'string' },
                    minWithdrawable: { type: 'integer' },
                    maxWithdrawable: { type: 'integer' },
                    defaultDescription: { type: 'string' },
                  },
                },
                lnurlError,
              ],
            },
            ...lnurlErrors(400, 404, 500, 502),
          },
        },
      },
      async (request) => {
        const address = await known(request.params.username);
        if (!address.withdrawEnabled)
          throw notFound(`LNURL-withdraw of ${urls.address(address.username)} (not enabled by its owner)`);
        const budgetLeft = address.withdrawBudgetMsat - address.withdrawSpentMsat;
        const affordable = largestPayable(await app.ledger.btcBalanceMsat(address.walletId));
        let max = address.withdrawMaxMsat;
        if (budgetLeft < max) max = budgetLeft;
        if (affordable < max) max = affordable;
        if (max < MIN_WITHDRAWABLE_MSAT)
          return errorReply('nothing to withdraw: the budget is spent or the wallet balance too low');
        return {
          tag: 'withdrawRequest',
          callback: urls.withdrawCallback(address.username),
          k1: await addresses.issueK1(address.username),
          minWithdrawable: Number(MIN_WITHDRAWABLE_MSAT),
          maxWithdrawable: Number(max),
          defaultDescription: `Withdraw from ${urls.address(address.username)}`,
        };
      },
    );

    app.get<{ Params: { username: string }; Querystring: { k1?: string; pr?: string } }>(
      '/lnurlw/:username/callback',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['lnurl'],
          summary:
            'LNURL-withdraw callback: pays `pr` from the wallet of the username (same pay path as POST /payments/pay); always 200 with status OK or ERROR',
          params: usernameParams,
          querystring: {
            type: 'object',
            properties: { k1: { type: 'string', maxLength: 128 }, pr: { type: 'string', maxLength: 7089 } },
          },
          response: { 200: lnurlOk, ...lnurlErrors(400, 500) },
        },
      },
      async (request) => {
        const { k1, pr } = request.query;
        if (!k1 || !pr) return errorReply('k1 and pr are required');
        const address = await addresses.byUsername(request.params.username.toLowerCase());
        if (!address?.withdrawEnabled) return errorReply('LNURL-withdraw is not enabled for this username');
        // The invoice is checked before the k1 is used up: a refused invoice changes nothing.
        let amount: bigint;
        let paymentHash: string;
        try {
          const invoice = decodeBolt11(pr, app.config.network);
          amount = invoice.amountMsat ?? 0n;
          paymentHash = invoice.paymentHash;
        } catch (err) {
          return errorReply((err as Error).message);
        }
        if (amount < MIN_WITHDRAWABLE_MSAT || amount > address.withdrawMaxMsat) {
          return errorReply(
            `the invoice amount must be between ${MIN_WITHDRAWABLE_MSAT} and ${address.withdrawMaxMsat} msat`,
          );
        }
        if (!(await addresses.consumeK1(address.username, k1)))
          return errorReply('k1 is unknown, already used or expired; scan the LNURL again');
        if (!(await addresses.spendBudget(address.username, k1, amount, paymentHash)))
          return errorReply('the withdraw budget of this username is spent');
        try {
          const { rows } = await app.db.query<{ user_id: string }>('select user_id::text from wallets where id = $1', [
            address.walletId,
          ]);
          const p = await outgoing.payInvoice(address.walletId, pr, {
            userId: rows[0]?.user_id ?? null,
            action: 'lnurl.withdraw',
            targetType: 'wallet',
            targetId: address.walletId,
            ip: request.ip,
            details: { username: address.username, amount_msat: amount.toString() },
          });
          if (p.status === 'failed') {
            await addresses.returnBudget(address.username, k1, paymentHash);
            return errorReply(`payment failed: ${p.error ?? 'unknown reason'}`);
          }
          return { status: 'OK' };
        } catch (err) {
          await addresses.returnBudget(address.username, k1, paymentHash);
          const refusal = err instanceof DomainError ? err : mapWalletServerError(err);
          if (refusal) return errorReply(refusal.message);
          request.log.error({ err }, 'LNURL-withdraw payment failed');
          return errorReply('the payment could not be made; try again later');
        }
      },
    );
  };
}
