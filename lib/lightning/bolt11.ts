// Reading BOLT11 invoices without a node: the payment hash, amount and expiry every client and
// service needs before (or instead of) asking one.
import { decode } from 'light-bolt11-decoder';
import { invalid } from '../errors.js';

export interface Bolt11 {
  /** The invoice as a node is given it: without a `lightning:` prefix or surrounding spaces, in lower case. */
  invoice: string;
  paymentHash: string;
  /** null for an invoice without an amount. */
  amountMsat: bigint | null;
  expiresAt: Date;
  description: string | null;
  descriptionHash: string | null;
  /** The human-readable network prefix after "ln" (bc, tb, bcrt...). */
  networkPrefix: string | undefined;
}

/** BOLT11 default expiry when the invoice has no expiry field. */
const DEFAULT_BOLT11_EXPIRY_SEC = 3600;

/**
 * The invoice in the one form every node reads: a `lightning:` URI prefix and surrounding spaces
 * dropped, upper case (bech32's form for QR codes) turned to lower case. Bech32 is all lower or all
 * upper case, so an invoice that mixes them is no invoice: 400, as nodes refuse it too.
 */
export function normalizeBolt11(text: string): string {
  const invoice = text.trim().replace(/^lightning:/i, '');
  if (invoice !== invoice.toLowerCase() && invoice !== invoice.toUpperCase()) {
    throw invalid(
      'INVALID_INVOICE',
      'not a valid BOLT11 invoice: it mixes upper- and lower-case letters (bech32 is all one case); send it as the payee gave it',
    );
  }
  return invoice.toLowerCase();
}

/** Decodes a BOLT11 invoice of any network; 400 INVALID_INVOICE when it is none. */
export function readBolt11(text: string): Bolt11 {
  const invoice = normalizeBolt11(text);
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(invoice);
  } catch (err) {
    throw invalid('INVALID_INVOICE', `not a valid BOLT11 invoice: ${(err as Error).message}`);
  }
  const section = <N extends string>(name: N) =>
    decoded.sections.find((s) => s.name === name) as
      | Extract<(typeof decoded.sections)[number], { name: N }>
      | undefined;
  const hash = section('payment_hash')?.value;
  if (!hash) throw invalid('INVALID_INVOICE', 'the invoice has no payment hash');
  const timestamp = section('timestamp')!.value;
  const expiry = section('expiry')?.value ?? DEFAULT_BOLT11_EXPIRY_SEC;
  const amount = section('amount')?.value;
  const descriptionHash = decoded.sections.find((s) => s.name === ('description_hash' as string)) as
    | { value?: string }
    | undefined;
  return {
    networkPrefix: section('coin_network')?.value?.bech32,
    invoice,
    paymentHash: hash,
    amountMsat: amount ? BigInt(amount) : null,
    expiresAt: new Date((timestamp + expiry) * 1000),
    description: section('description')?.value ?? null,
    descriptionHash: descriptionHash?.value ?? null,
  };
}
