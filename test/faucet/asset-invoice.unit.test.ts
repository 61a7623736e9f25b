// What the asset faucet pays for an RGB invoice, and every invoice it refuses, with the reason.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lib/errors.js';
import type { RlnInvoiceData } from '../../lib/rln/client.js';
import { assetClaimOf, type AssetOffer } from '../../services/faucet/src/asset-invoice.js';

const OFFER: AssetOffer = { assetId: 'rgb:lab', ticker: 'LAB', amount: 50 };
const NOW = 1_800_000_000;
const PROXY = 'rpc://127.0.0.1:3000/json-rpc';

const invoice = (fields: Partial<RlnInvoiceData> = {}): RlnInvoiceData => ({
  recipient_id: 'bcrt:utxob:abc',
  recipient_type: 'Blind',
  asset_schema: null,
  asset_id: null,
  assignment: { type: 'Any' },
  network: 'Regtest',
  expiration_timestamp: NOW + 3600,
  transport_endpoints: [PROXY],
  ...fields,
});

function refusal(fields: Partial<RlnInvoiceData>): { code: string; message: string } {
  try {
    assetClaimOf(invoice(fields), OFFER, NOW);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.kind).toBe('invalid');
    return { code: error.code, message: error.message };
  }
  throw new Error('the invoice was accepted');
}

describe('asset faucet: what an invoice gets', () => {
  it("pays the faucet's amount to an invoice open to any amount, and the amount an invoice names up to the faucet's", () => {
    expect(assetClaimOf(invoice(), OFFER, NOW)).toEqual({
      recipientId: 'bcrt:utxob:abc',
      witness: false,
      amount: 50,
      transportEndpoints: [PROXY],
    });
    expect(
      assetClaimOf(
        invoice({ assignment: { type: 'Fungible', value: 20 }, asset_id: 'rgb:lab', asset_schema: 'Nia' }),
        OFFER,
        NOW,
      ).amount,
    ).toBe(20);
    expect(assetClaimOf(invoice({ assignment: { type: 'Fungible', value: 50 } }), OFFER, NOW).amount).toBe(50);
    expect(assetClaimOf(invoice({ recipient_type: 'Witness', expiration_timestamp: null }), OFFER, NOW)).toMatchObject({
      witness: true,
      amount: 50,
    });
  });

  it('refuses another asset, too much, a unique token, another network, an expired invoice and one without a proxy', () => {
    expect(refusal({ asset_id: 'rgb:other' })).toEqual({
      code: 'WRONG_ASSET',
      message:
        'the invoice asks for asset rgb:other; this faucet gives LAB (rgb:lab): make an invoice for LAB, or one open to any asset',
    });
    expect(refusal({ assignment: { type: 'Fungible', value: 51 } })).toEqual({
      code: 'AMOUNT_TOO_HIGH',
      message:
        'the invoice asks for 51 LAB; this faucet gives at most 50 per claim: make an invoice for 50 or less, or for any amount',
    });
    expect(refusal({ assignment: { type: 'NonFungible' } })).toMatchObject({
      code: 'INVALID_ASSIGNMENT',
      message: expect.stringMatching(/a NonFungible assignment; LAB is fungible/),
    });
    expect(refusal({ assignment: { type: 'Fungible', value: 0 } })).toMatchObject({
      code: 'INVALID_ASSIGNMENT',
      message: expect.stringMatching(/asks for 0 LAB; ask for 1 to 50/),
    });
    expect(refusal({ network: 'Testnet' })).toEqual({
      code: 'WRONG_NETWORK',
      message: 'the invoice is for Testnet; this faucet pays regtest invoices',
    });
    expect(refusal({ expiration_timestamp: NOW })).toEqual({
      code: 'INVOICE_EXPIRED',
      message: `the invoice expired at ${new Date(NOW * 1000).toISOString()}; make a new one`,
    });
    expect(refusal({ transport_endpoints: [] })).toMatchObject({
      code: 'INVALID_INVOICE',
      message: expect.stringMatching(/names no transport endpoint/),
    });
  });
});
