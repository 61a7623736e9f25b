// Scripts and transactions as bitcoind's getrawtransaction shows them (ScriptToAsmStr, Solver).
import { Transaction, networks, payments } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { scriptAsm, scriptPubKeyJson } from '../../services/indexer/src/script-json.js';
import { verboseTransaction } from '../../services/indexer/src/verbose-tx.js';

const bytes = (fill: number, length: number) => Buffer.alloc(length, fill);
const hex = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'hex') : part)));
const hash20 = bytes(0x11, 20);
const key32 = bytes(0x22, 32);
const pubkey = hex('02', bytes(0x33, 32));
// a strict-DER signature (r and s of 32 bytes, high bit clear) followed by its sighash byte
const derSignature = hex('3044', '0220', bytes(0x44, 32), '0220', bytes(0x55, 32));

describe("scripts in bitcoind's words", () => {
  it('names the standard output types, with their regtest address', () => {
    const p2wpkh = hex('0014', hash20);
    expect(scriptPubKeyJson(p2wpkh)).toEqual({
      asm: `0 ${hash20.toString('hex')}`,
      hex: p2wpkh.toString('hex'),
      address: payments.p2wpkh({ hash: hash20, network: networks.regtest }).address,
      type: 'witness_v0_keyhash',
    });
    const p2pkh = hex('76a914', hash20, '88ac');
    expect(scriptPubKeyJson(p2pkh)).toMatchObject({
      asm: `OP_DUP OP_HASH160 ${hash20.toString('hex')} OP_EQUALVERIFY OP_CHECKSIG`,
      address: payments.p2pkh({ hash: hash20, network: networks.regtest }).address,
      type: 'pubkeyhash',
    });
    const p2sh = hex('a914', hash20, '87');
    expect(scriptPubKeyJson(p2sh)).toMatchObject({
      asm: `OP_HASH160 ${hash20.toString('hex')} OP_EQUAL`,
      address: payments.p2sh({ hash: hash20, network: networks.regtest }).address,
      type: 'scripthash',
    });
    const p2wsh = hex('0020', key32);
    expect(scriptPubKeyJson(p2wsh)).toMatchObject({
      type: 'witness_v0_scripthash',
      address: payments.p2wsh({ hash: key32, network: networks.regtest }).address,
    });
    const p2tr = hex('5120', key32);
    expect(scriptPubKeyJson(p2tr)).toMatchObject({
      asm: `1 ${key32.toString('hex')}`,
      type: 'witness_v1_taproot',
      address: expect.stringMatching(/^bcrt1p/),
    });
    expect(scriptPubKeyJson(hex('5220', key32))).toMatchObject({
      type: 'witness_unknown',
      address: expect.stringMatching(/^bcrt1z/),
    });
    // version 0 with a program that is neither 20 nor 32 bytes is no standard output
    expect(scriptPubKeyJson(hex('0019', bytes(1, 25)))).toEqual({
      asm: `0 ${bytes(1, 25).toString('hex')}`,
      hex: hex('0019', bytes(1, 25)).toString('hex'),
      type: 'nonstandard',
    });
  });

  it('tells data carriers, bare keys and multisig apart, without an address', () => {
    const commitment = hex('6a20', key32);
    expect(scriptPubKeyJson(commitment)).toEqual({
      asm: `OP_RETURN ${key32.toString('hex')}`,
      hex: commitment.toString('hex'),
      type: 'nulldata',
    });
    expect(scriptPubKeyJson(hex('21', pubkey, 'ac'))).toEqual({
      asm: `${pubkey.toString('hex')} OP_CHECKSIG`,
      hex: hex('21', pubkey, 'ac').toString('hex'),
      type: 'pubkey',
    });
    const other = hex('03', bytes(0x66, 32));
    const multisig = hex('5121', pubkey, '21', other, '52ae');
    expect(scriptPubKeyJson(multisig)).toMatchObject({
      asm: `1 ${pubkey.toString('hex')} ${other.toString('hex')} 2 OP_CHECKMULTISIG`,
      type: 'multisig',
    });
    expect(scriptPubKeyJson(multisig)).not.toHaveProperty('address');
    // OP_RETURN followed by a non-push opcode is not a data carrier
    expect(scriptPubKeyJson(hex('6aac'))).toMatchObject({ asm: 'OP_RETURN OP_CHECKSIG', type: 'nonstandard' });
  });

  it('writes pushes of up to 4 bytes as numbers, opcodes by their consensus names, a cut push as [error]', () => {
    expect(scriptAsm(hex('0105', '02ff00', '0181', '00', '4f', '60'))).toBe('5 255 -1 0 -1 16');
    expect(scriptAsm(hex('b1b2b3ba'))).toBe('OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_NOP4 OP_CHECKSIGADD');
    expect(scriptAsm(hex('fdff'))).toBe('OP_UNKNOWN OP_INVALIDOPCODE');
    expect(scriptAsm(hex('76', '4c0501'))).toBe('OP_DUP [error]');
    expect(scriptAsm(hex('4d0100'))).toBe('[error]');
  });

  it('decodes the sighash of a signature in a scriptSig, and only there', () => {
    const scriptSig = hex('47', derSignature, '01', '21', pubkey);
    expect(scriptAsm(scriptSig, true)).toBe(`${derSignature.toString('hex')}[ALL] ${pubkey.toString('hex')}`);
    expect(scriptAsm(hex('47', derSignature, '83'), true)).toBe(`${derSignature.toString('hex')}[SINGLE|ANYONECANPAY]`);
    expect(scriptAsm(scriptSig)).toBe(`${derSignature.toString('hex')}01 ${pubkey.toString('hex')}`);
    // an undefined sighash type, or bytes that are no DER signature, stay hex
    expect(scriptAsm(hex('47', derSignature, '04'), true)).toBe(`${derSignature.toString('hex')}04`);
    expect(scriptAsm(hex('21', pubkey), true)).toBe(pubkey.toString('hex'));
  });
});

describe('verbose transactions', () => {
  const tx = new Transaction();
  tx.addInput(bytes(0xaa, 32), 3, 0xfffffffd, hex('0151'));
  tx.addOutput(hex('0014', hash20), 123_456_789n);
  tx.addOutput(hex('6a20', key32), 0n);
  tx.setWitness(0, [derSignature, pubkey]);
  tx.locktime = 120;

  it('carries the sizes, inputs and outputs of the transaction', () => {
    const verbose = verboseTransaction(tx.toHex());
    expect(verbose).toMatchObject({
      txid: tx.getId(),
      hash: Buffer.from(tx.getHash(true)).reverse().toString('hex'),
      size: tx.byteLength(),
      vsize: tx.virtualSize(),
      weight: tx.weight(),
      version: tx.version,
      locktime: 120,
      hex: tx.toHex(),
    });
    expect(verbose.hash).not.toBe(verbose.txid);
    expect(verbose.vin).toEqual([
      {
        txid: bytes(0xaa, 32).toString('hex'),
        vout: 3,
        scriptSig: { asm: '81', hex: '0151' },
        txinwitness: [derSignature.toString('hex'), pubkey.toString('hex')],
        sequence: 0xfffffffd,
      },
    ]);
    expect(verbose.vout.map((output) => [output.value, output.n, output.scriptPubKey.type])).toEqual([
      [1.23456789, 0, 'witness_v0_keyhash'],
      [0, 1, 'nulldata'],
    ]);
  });

  it('says where a confirmed one is and how deep; an unconfirmed one has no block fields', () => {
    expect(
      verboseTransaction(tx.toHex(), { hash: 'ee'.repeat(32), height: 10, time: 1_700_000_000, tipHeight: 12 }),
    ).toMatchObject({
      blockhash: 'ee'.repeat(32),
      confirmations: 3,
      time: 1_700_000_000,
      blocktime: 1_700_000_000,
    });
    const unconfirmed = verboseTransaction(tx.toHex());
    for (const field of ['blockhash', 'confirmations', 'time', 'blocktime'])
      expect(unconfirmed).not.toHaveProperty(field);
  });
});
