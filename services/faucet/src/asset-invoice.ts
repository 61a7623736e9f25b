// What an RGB invoice a user pastes asks of the asset faucet, checked before anything is taken or
// paid: the lab's network, the faucet's asset (or any), an amount within the faucet's, not expired,
// a proxy to send the consignment to.
import { invalid } from '../../../lib/errors.js';
import type { RlnAssignment, RlnInvoiceData } from '../../../lib/rln/client.js';

/** What the faucet gives per claim. */
export interface AssetOffer {
  assetId: string;
  ticker: string;
  amount: number;
}

/** A claim the faucet can pay: whom, how much, and where the consignment goes. */
export interface AssetClaimRequest {
  recipientId: string;
  /** A witness invoice: the payment makes a new output of the payee's (a blinded one pays to a UTXO the payee has). */
  witness: boolean;
  amount: number;
  transportEndpoints: string[];
}

/** An invoice naming an amount gets that amount, at most the faucet's; one open to any amount gets the faucet's. */
function amountAsked(assignment: RlnAssignment, offer: AssetOffer): number {
  if (assignment.type === 'Any') return offer.amount;
  // NonFungible (a UDA's), or an inflation right
  if (assignment.type !== 'Fungible') {
    throw invalid(
      'INVALID_ASSIGNMENT',
      `the invoice asks for a ${assignment.type} assignment; ${offer.ticker} is fungible: make an invoice for an amount (at most ${offer.amount}) or for any amount`,
    );
  }
  if (assignment.value > offer.amount) {
    throw invalid(
      'AMOUNT_TOO_HIGH',
      `the invoice asks for ${assignment.value} ${offer.ticker}; this faucet gives at most ${offer.amount} per claim: make an invoice for ${offer.amount} or less, or for any amount`,
    );
  }
  if (assignment.value < 1)
    throw invalid(
      'INVALID_ASSIGNMENT',
      `the invoice asks for ${assignment.value} ${offer.ticker}; ask for 1 to ${offer.amount}, or for any amount`,
    );
  return assignment.value;
}

export function assetClaimOf(invoice: RlnInvoiceData, offer: AssetOffer, nowSeconds: number): AssetClaimRequest {
  if (invoice.network.toLowerCase() !== 'regtest')
    throw invalid('WRONG_NETWORK', `the invoice is for ${invoice.network}; this faucet pays regtest invoices`);
  if (invoice.asset_id !== null && invoice.asset_id !== offer.assetId) {
    throw invalid(
      'WRONG_ASSET',
      `the invoice asks for asset ${invoice.asset_id}; this faucet gives ${offer.ticker} (${offer.assetId}): make an invoice for ${offer.ticker}, or one open to any asset`,
    );
  }
  if (invoice.expiration_timestamp !== null && invoice.expiration_timestamp <= nowSeconds) {
    throw invalid(
      'INVOICE_EXPIRED',
      `the invoice expired at ${new Date(invoice.expiration_timestamp * 1000).toISOString()}; make a new one`,
    );
  }
  if (invoice.transport_endpoints.length === 0) {
    throw invalid(
      'INVALID_INVOICE',
      "the invoice names no transport endpoint (consignment proxy) for the faucet to send the transfer's consignment to: make one that names the lab's proxy",
    );
  }
  return {
    recipientId: invoice.recipient_id,
    witness: invoice.recipient_type === 'Witness',
    amount: amountAsked(invoice.assignment, offer),
    transportEndpoints: invoice.transport_endpoints,
  };
}
