import { Transaction, networks } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../lib/bitcoin/address.js';
import {
  difficultyOf,
  headerInfo,
  medianTimes,
  parentTxids,
  toEsploraTx,
} from '../../services/chain-adapter/src/esplora/convert.js';
import { scriptAsm, scriptType } from '../../services/chain-adapter/src/esplora/script.js';

const REGTEST_GENESIS_HEADER =
  '01000000' +
  '00'.repeat(32) +
  '3ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a' +
  'dae5494d' +
  'ffff7f20' +
  '02000000';
const P2WPKH = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const P2TR = 'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6';

function coinbase(script: Uint8Array, value: bigint): Transaction {
  const tx = new Transaction();
  tx.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, Buffer.from('0101', 'hex'));
  tx.addOutput(script, value);
  return tx;
}

describe('Esplora conversions', () => {
  it('reads hash and time from a block header (regtest genesis)', () => {
    expect(headerInfo(REGTEST_GENESIS_HEADER)).toEqual({
      hash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
      time: 1296688602,
    });
    expect(() => headerInfo('00')).toThrow(/80 bytes/);
  });

  it('builds a transaction object with prevouts, fee, script types and addresses', () => {
    const wpkh = parseAddress(P2WPKH, 'regtest').script;
    const tr = parseAddress(P2TR, 'regtest').script;
    const parent = coinbase(wpkh, 50_000n);
    const child = new Transaction();
    child.version = 2;
    child.locktime = 101;
    child.addInput(Buffer.from(parent.getId(), 'hex').reverse(), 0, 0xfffffffd);
    child.setWitness(0, [Buffer.from('3044', 'hex'), Buffer.from('02aa', 'hex')]);
    child.addOutput(tr, 30_000n);
    child.addOutput(Buffer.from('6a0568656c6c6f', 'hex'), 0n);

    expect(parentTxids(child)).toEqual([parent.getId()]);
    const esplora = toEsploraTx(child, new Map([[parent.getId(), parent]]), { confirmed: false }, networks.regtest);
    expect(esplora).toMatchObject({
      txid: child.getId(),
      version: 2,
      locktime: 101,
      fee: 20_000,
      size: child.byteLength(),
      weight: child.weight(),
      status: { confirmed: false },
    });
    expect(esplora.vin[0]).toEqual({
      txid: parent.getId(),
      vout: 0,
      prevout: {
        scriptpubkey: '0014751e76e8199196d454941c45d1b3a323f1433bd6',
        scriptpubkey_asm: 'OP_0 OP_PUSHBYTES_20 751e76e8199196d454941c45d1b3a323f1433bd6',
        scriptpubkey_type: 'v0_p2wpkh',
        scriptpubkey_address: P2WPKH,
        value: 50_000,
      },
      scriptsig: '',
      scriptsig_asm: '',
      witness: ['3044', '02aa'],
      is_coinbase: false,
      sequence: 0xfffffffd,
    });
    expect(esplora.vout[0]).toMatchObject({ scriptpubkey_type: 'v1_p2tr', scriptpubkey_address: P2TR, value: 30_000 });
    expect(esplora.vout[1]).toEqual({
      scriptpubkey: '6a0568656c6c6f',
      scriptpubkey_asm: 'OP_RETURN OP_PUSHBYTES_5 68656c6c6f',
      scriptpubkey_type: 'op_return',
      value: 0,
    });
  });

  it('gives a coinbase no prevout and no fee', () => {
    const tx = coinbase(parseAddress(P2WPKH, 'regtest').script, 5_000_000_000n);
    const esplora = toEsploraTx(
      tx,
      new Map(),
      { confirmed: true, block_height: 1, block_hash: 'ab', block_time: 1 },
      networks.regtest,
    );
    expect(esplora.fee).toBe(0);
    expect(esplora.vin[0]).toMatchObject({ is_coinbase: true, prevout: null });
    expect(esplora.vout[0]!.value).toBe(5_000_000_000);
  });

  it('refuses to guess a fee when a prevout is missing', () => {
    const child = new Transaction();
    child.addInput(Buffer.alloc(32, 1), 3);
    child.addOutput(Buffer.from('51', 'hex'), 1n);
    expect(() => toEsploraTx(child, new Map(), { confirmed: false }, networks.regtest)).toThrow(/previous output .*:3/);
  });

  it('prints scripts the way Esplora does', () => {
    expect(scriptAsm(Buffer.from('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'hex'))).toBe(
      'OP_DUP OP_HASH160 OP_PUSHBYTES_20 62e907b15cbf27d5425399ebf6f0fb50ebb88f18 OP_EQUALVERIFY OP_CHECKSIG',
    );
    expect(scriptAsm(Buffer.from('5221aa', 'hex'))).toBe('OP_PUSHNUM_2 <push past end>');
    expect(scriptAsm(Buffer.from('4c0201ff', 'hex'))).toBe('OP_PUSHDATA1 01ff');
    expect(scriptType(Buffer.from(`a914${'00'.repeat(20)}87`, 'hex'))).toBe('p2sh');
    expect(scriptType(Buffer.alloc(0))).toBe('empty');
  });

  it('computes difficulty from bits as nodes do, and the median time past of 11 blocks', () => {
    expect(difficultyOf(0x1d00ffff)).toBe(1);
    expect(difficultyOf(0x207fffff)).toBeCloseTo(4.656542373906925e-10, 20);
    const times = new Map(Array.from({ length: 13 }, (_, h) => [h, 1000 + (h % 2 === 0 ? h * 10 : -h)] as const));
    const median = medianTimes(times, [0, 2, 12]);
    expect(median.get(0)).toBe(1000);
    expect(median.get(2)).toBe(1000); // sorted 999, 1000, 1020
    // heights 2..12: 1020 997 1040 995 1060 993 1080 991 1100 989 1120 -> sorted middle
    expect(median.get(12)).toBe(1020);
  });
});
