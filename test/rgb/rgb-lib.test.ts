// lib/rgb over the real rgb-lib binding, without a chain: keys, an offline wallet, and the
// binding's quirks and errors as callers meet them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { address as addressLib, networks } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRgbKeys } from '../../lib/rgb/keys.js';
import { RgbLibError } from '../../lib/rgb/rgb-lib-error.js';
import { RgbWallet } from '../../lib/rgb/wallet.js';

describe('rgb-lib through lib/rgb', () => {
  let dir: string;
  let wallet: RgbWallet;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rgb-lib-'));
    wallet = await RgbWallet.open({ dataDir: dir, keys: await generateRgbKeys() });
  });

  afterAll(async () => {
    await wallet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('makes regtest keys and opens a wallet that gives regtest addresses and empty balances offline', async () => {
    const keys = await generateRgbKeys();
    expect(keys.mnemonic.split(' ')).toHaveLength(12);
    expect(keys.accountXpubColored).toMatch(/^tpub/);
    const address = await wallet.address();
    expect(() => addressLib.toOutputScript(address, networks.regtest)).not.toThrow();
    expect(await wallet.btcBalance()).toEqual({
      vanilla: { settled: 0, future: 0, spendable: 0 },
      colored: { settled: 0, future: 0, spendable: 0 },
    });
  });

  it("keeps rgb-lib's error variant and fields", async () => {
    const refusal = await wallet.goOnline('tcp://127.0.0.1:1').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RgbLibError);
    expect((refusal as RgbLibError).variant).toBe('InvalidIndexer');
    expect((refusal as RgbLibError).field('details')).toMatch(/not a valid electrum nor esplora server/);
    const ticker = await wallet
      .issueNia({ ticker: 'lower', name: 'x', precision: 0, amounts: [5] })
      .catch((error: unknown) => error);
    expect(ticker).toMatchObject({ variant: 'InvalidTicker', message: expect.stringContaining('uppercase') });
  });

  it('says a wallet is offline before rgb-lib is asked for anything online', async () => {
    await expect(wallet.refresh()).rejects.toThrow(/offline: call goOnline/);
    await expect(wallet.createUtxos()).rejects.toThrow(/offline/);
  });

  it('refuses amounts a JSON number cannot carry exactly, and negative ones, before rgb-lib sees them', async () => {
    await expect(wallet.issueNia({ ticker: 'BIG', name: 'Big', precision: 0, amounts: [2 ** 53] })).rejects.toThrow(
      RangeError,
    );
    await expect(wallet.issueNia({ ticker: 'NEG', name: 'Neg', precision: 0, amounts: [-1] })).rejects.toThrow(
      /whole number/,
    );
    await expect(wallet.blindReceive({ assignment: { Fungible: 1.5 }, transportEndpoints: [] })).rejects.toThrow(
      RangeError,
    );
  });

  it('reads a printed rgb-lib error back, quoted and numeric fields alike', () => {
    const error = new RgbLibError('RgbLib(InsufficientBitcoins { needed: 6000, available: 0 })');
    expect([error.variant, error.field('needed'), error.field('available'), error.field('details')]).toEqual([
      'InsufficientBitcoins',
      '6000',
      '0',
      undefined,
    ]);
    expect(new RgbLibError('RgbLib(InvalidName { details: "a \\"quoted\\" name" })').field('details')).toBe(
      'a "quoted" name',
    );
    expect(new RgbLibError('numbers must be passed as strings').variant).toBe('');
  });
});
