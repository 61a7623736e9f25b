// LNURL-pay and LNURL-withdraw driven as an outside LNURL wallet drives them: it fetches the
// service's parameters over HTTP, checks them, follows the callback, and pays or is paid by a lab
// node. Service answers that a wallet would refuse fail the step.
import { createHash } from 'node:crypto';
import { decode } from 'light-bolt11-decoder';
import { StepFailure } from './failure.js';
import { call } from './http.js';
import type { AnyStepKind, StepContext } from './kind.js';
import { msat, node, object, text } from './schema-parts.js';

const SERVICE = 'the LNURL service';

/** A LUD-16 lightning address (user@host) becomes its LNURL-pay URL; a URL is taken as it is. */
export function lnurlPayUrl(target: string): string {
  if (/^https?:\/\//.test(target)) return target;
  const [user, host] = target.split('@');
  const scheme = /^(localhost|127\.|\[::1\])/.test(host) ? 'http' : 'https';
  return `${scheme}://${host}/.well-known/lnurlp/${user}`;
}

/** GETs an LNURL endpoint; an LNURL-style `{status: "ERROR", reason}` is a failure. */
async function lnurlGet(url: string, context: StepContext): Promise<Record<string, unknown>> {
  const answer = (await call(url, { signal: context.signal, service: SERVICE })) as Record<string, unknown>;
  if (answer.status === 'ERROR')
    throw new StepFailure(`${SERVICE} refused: ${answer.reason ?? 'no reason given'}`, {
      code: 'LNURL_ERROR',
      body: answer,
    });
  return answer;
}

function withQuery(url: string, query: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(query)) target.searchParams.set(key, value);
  return target.toString();
}

function withinBounds(amount: bigint, min: unknown, max: unknown, what: string): void {
  if (amount < BigInt(Number(min)) || amount > BigInt(Number(max))) {
    throw new StepFailure(`${amount} msat is outside the ${what} the service allows (${min} to ${max} msat)`, {
      code: 'AMOUNT_OUT_OF_RANGE',
    });
  }
}

function invoiceSection(invoice: string, name: string): unknown {
  // description_hash is missing from the library's section types, so sections are read as plain records
  const section = decode(invoice).sections.find((candidate) => candidate.name === name) as
    | { value?: unknown }
    | undefined;
  return section?.value;
}

const pay: AnyStepKind = {
  name: 'lnurl.pay',
  summary:
    'LNURL-pay (LUD-06/16) to a lightning address or LNURL-pay URL from a lab node: fetch the parameters, get the invoice from the callback, check its amount and description hash, pay it',
  payment: () => true,
  args: object(
    {
      target: { ...text, description: 'user@host or the https?:// URL of the payRequest' },
      amount_msat: msat,
      from: node,
    },
    ['target', 'amount_msat', 'from'],
  ),
  async run(args: { target: string; amount_msat: number | string; from: string }, context) {
    const amount = BigInt(args.amount_msat);
    const request = await lnurlGet(lnurlPayUrl(args.target), context);
    if (request.tag !== 'payRequest')
      throw new StepFailure(`${SERVICE} answered tag "${request.tag}", not payRequest`, {
        code: 'LNURL_ERROR',
        body: request,
      });
    withinBounds(amount, request.minSendable, request.maxSendable, 'sendable amounts');
    const { pr } = (await lnurlGet(withQuery(String(request.callback), { amount: amount.toString() }), context)) as {
      pr: string;
    };
    if (String(invoiceSection(pr, 'amount')) !== amount.toString())
      throw new StepFailure(
        `the invoice is for ${invoiceSection(pr, 'amount')} msat, not the ${amount} msat asked for`,
        { code: 'LNURL_BAD_INVOICE' },
      );
    const metadataHash = createHash('sha256').update(String(request.metadata), 'utf8').digest('hex');
    if (invoiceSection(pr, 'description_hash') !== metadataHash)
      throw new StepFailure(
        'the invoice does not commit to the metadata (its description hash is not sha256(metadata), LUD-06)',
        { code: 'LNURL_BAD_INVOICE' },
      );
    const payment = await context.lab.runJob('/payments', { from: args.from, invoice: pr });
    return { pay_request: request, invoice: pr, payment };
  },
};

const withdraw: AnyStepKind = {
  name: 'lnurl.withdraw',
  summary:
    'LNURL-withdraw (LUD-03) into a lab node: fetch the withdrawRequest, make an invoice on the node (amount_msat, default the most allowed), hand it to the callback',
  args: object({ url: text, amount_msat: msat, to: node }, ['url', 'to']),
  async run(args: { url: string; amount_msat?: number | string; to: string }, context) {
    const request = await lnurlGet(args.url, context);
    if (request.tag !== 'withdrawRequest')
      throw new StepFailure(`${SERVICE} answered tag "${request.tag}", not withdrawRequest`, {
        code: 'LNURL_ERROR',
        body: request,
      });
    const amount = BigInt(args.amount_msat ?? Number(request.maxWithdrawable));
    withinBounds(amount, request.minWithdrawable, request.maxWithdrawable, 'withdrawable amounts');
    const invoice = await context.lab.post<{ payment_request: string; payment_hash: string }>(
      `/nodes/${encodeURIComponent(args.to)}/invoices`,
      {
        amount_msat: Number(amount),
        memo: typeof request.defaultDescription === 'string' ? request.defaultDescription : undefined,
      },
    );
    const answer = await lnurlGet(
      withQuery(String(request.callback), { k1: String(request.k1), pr: invoice.payment_request }),
      context,
    );
    return {
      withdraw_request: request,
      invoice: invoice.payment_request,
      payment_hash: invoice.payment_hash,
      status: answer.status,
    };
  },
};

export const lnurlSteps = [pay, withdraw];
