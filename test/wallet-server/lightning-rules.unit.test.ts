import { describe, expect, test } from 'vitest';
import { utils } from '@noble/secp256k1';
import { normalizeBolt11 } from '../../lib/lightning/bolt11.js';
import { decodeBolt11 } from '../../services/wallet-server/src/lightning/bolt11.js';
import { feeLimitMsat, largestPayable } from '../../services/wallet-server/src/lightning/rules.js';
import { encodeBolt11 } from '../doubles/bolt11-encode.js';

describe('fee limit max(1%, 10 sat)', () => {
  test.each([
    [1n, 10_000n],
    [1_000_000n, 10_000n],
    [1_000_100n, 10_001n],
    [1_000_101n, 10_002n],
    [5_000_000_000n, 50_000_000n],
  ])('%s msat -> %s msat', (amount, limit) => {
    expect(feeLimitMsat(amount)).toBe(limit);
  });

  test('largestPayable is the largest amount whose amount + fee limit fits the balance', () => {
    for (const balance of [0n, 9_999n, 10_000n, 10_001n, 1_010_000n, 1_010_001n, 1_020_201n, 123_456_789n]) {
      const a = largestPayable(balance);
      if (a > 0n) expect(a + feeLimitMsat(a)).toBeLessThanOrEqual(balance);
      expect(a + 1n + feeLimitMsat(a + 1n)).toBeGreaterThan(balance);
    }
  });
});

describe('decodeBolt11', () => {
  const hash = 'ef'.repeat(32);
  test('reads hash, amount, expiry and description of a regtest invoice', async () => {
    const bolt11 = await encodeBolt11({
      secretKey: utils.randomSecretKey(),
      paymentHash: hash,
      amountMsat: 2_500n,
      description: 'coffee',
      expirySec: 60,
      timestamp: 1_700_000_000,
    });
    expect(decodeBolt11(bolt11.toUpperCase(), 'regtest')).toEqual({
      invoice: bolt11,
      paymentHash: hash,
      amountMsat: 2_500n,
      expiresAt: new Date(1_700_000_060_000),
      description: 'coffee',
      descriptionHash: null,
    });
  });

  test('refuses another network and garbage with 400s that say why', async () => {
    const testnet = await encodeBolt11({ secretKey: utils.randomSecretKey(), paymentHash: hash, prefix: 'tb' });
    expect(() => decodeBolt11(testnet, 'regtest')).toThrow(/network "tb".*regtest/);
    expect(() => decodeBolt11('lnbcrt1notaninvoice', 'regtest')).toThrow(/not a valid BOLT11 invoice/);
  });
});

describe('the form of an invoice', () => {
  const invoice = () =>
    encodeBolt11({ secretKey: utils.randomSecretKey(), paymentHash: '12'.repeat(32), amountMsat: 10_000n });

  test('upper case, a lightning: prefix and spaces around are read as the lower-case invoice', async () => {
    const bolt11 = await invoice();
    for (const form of [
      bolt11.toUpperCase(),
      `lightning:${bolt11}`,
      `LIGHTNING:${bolt11.toUpperCase()}`,
      ` ${bolt11}\n`,
    ]) {
      expect(normalizeBolt11(form), form).toBe(bolt11);
      expect(decodeBolt11(form, 'regtest').invoice, form).toBe(bolt11);
    }
  });

  test('an invoice mixing upper and lower case is refused with 400 INVALID_INVOICE', async () => {
    const bolt11 = await invoice();
    // one letter of the data part upper-cased, as in the report; and upper-case prefix, lower-case data
    const oneUpper = bolt11.replace(
      /(lnbcrt[0-9a-z]+1)([a-z])/,
      (_m, head: string, c: string) => head + c.toUpperCase(),
    );
    expect(oneUpper).not.toBe(bolt11);
    for (const form of [oneUpper, `LNBCRT${bolt11.slice(6)}`, `lightning:${oneUpper}`]) {
      let refusal: unknown;
      try {
        decodeBolt11(form, 'regtest');
      } catch (err) {
        refusal = err;
      }
      expect(refusal, form).toMatchObject({
        kind: 'invalid',
        code: 'INVALID_INVOICE',
        message: expect.stringMatching(/mixes upper- and lower-case/),
      });
    }
  });
});
