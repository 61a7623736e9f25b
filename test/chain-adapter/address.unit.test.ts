import { describe, expect, it } from 'vitest';
import { AddressError, parseAddress, scriptHashOf } from '../../lib/bitcoin/address.js';

// BIP-173 test vector program (P2WPKH of the key hash 751e76e8...) encoded for each network.
const REGTEST_P2WPKH = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const MAINNET_P2WPKH = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const TESTNET_P2WPKH = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

function refusal(address: string): string {
  try {
    parseAddress(address, 'regtest');
  } catch (error) {
    expect(error).toBeInstanceOf(AddressError);
    return (error as Error).message;
  }
  throw new Error(`${address} was accepted`);
}

describe('parseAddress (regtest)', () => {
  it('decodes a regtest P2WPKH address to its script and Electrum script hash', () => {
    const parsed = parseAddress(REGTEST_P2WPKH, 'regtest');
    expect(Buffer.from(parsed.script).toString('hex')).toBe('0014751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(parsed.kind).toBe('bech32');
    // Electrum script hash: sha256 of the script, bytes reversed.
    expect(parsed.scriptHash).toBe(scriptHashOf(parsed.script));
  });

  it('computes the script hash as reversed sha256 (known vector)', () => {
    // Electrum protocol docs: P2PKH 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa ->
    // 8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161
    const script = Buffer.from('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'hex');
    expect(scriptHashOf(script)).toBe('8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
  });

  it('accepts upper-case bech32 and returns it lower-cased', () => {
    expect(parseAddress(REGTEST_P2WPKH.toUpperCase(), 'regtest').address).toBe(REGTEST_P2WPKH);
  });

  it('accepts regtest taproot (bech32m) and base58 testnet-version addresses', () => {
    const taproot = 'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6';
    expect(parseAddress(taproot, 'regtest').script.length).toBe(34);
    expect(parseAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'regtest').kind).toBe('base58');
  });

  it('says when an address belongs to another network', () => {
    expect(refusal(MAINNET_P2WPKH)).toMatch(/mainnet address .*bcrt1/);
    expect(refusal(TESTNET_P2WPKH)).toMatch(/testnet\/signet address/);
    expect(refusal('1BoatSLRHtKNngkdXEeobR3y8jqsD8tw6q')).toMatch(/base58 checksum|mainnet/);
    expect(refusal('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toMatch(/is a mainnet address/);
  });

  it('says when a checksum is wrong', () => {
    expect(refusal(`${REGTEST_P2WPKH.slice(0, -1)}q`)).toMatch(/bad bech32 checksum/);
    expect(refusal(`${REGTEST_P2WPKH.slice(0, -1)}b`)).toMatch(/contains "b", which bech32 never uses/);
    expect(refusal('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfm')).toMatch(/bad base58 checksum/);
  });

  it('refuses mixed case and things that are not addresses', () => {
    expect(refusal('bcrt1qW508d6qejxtdg4y5r3zarvary0c5xw7kygt080')).toMatch(/mixes upper and lower case/);
    expect(refusal('hello')).toMatch(/not a Bitcoin address/);
  });
});
