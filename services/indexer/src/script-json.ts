// Scripts as bitcoind's RPC shows them (ScriptToAsmStr, Solver's type names, the address), so the
// indexer's verbose transactions read like those of electrs over Bitcoin Core.
import { address as addressLib, networks, opcodes } from 'bitcoinjs-lib';

const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;
const OP_1NEGATE = 0x4f;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_RETURN = 0x6a;
const OP_CHECKSIG = 0xac;
const OP_CHECKMULTISIG = 0xae;

/** bitcoinjs also knows aliases and template pseudo-opcodes that bitcoind never prints. */
const NOT_BITCOIND_NAMES = new Set(['OP_FALSE', 'OP_TRUE', 'OP_NOP2', 'OP_NOP3', 'OP_PUBKEYHASH', 'OP_PUBKEY']);
const OPCODE_NAMES = new Map<number, string>(
  Object.entries(opcodes).flatMap(([name, code]) =>
    typeof code === 'number' && !NOT_BITCOIND_NAMES.has(name) ? [[code, name] as const] : [],
  ),
);

interface ScriptOp {
  opcode: number;
  /** The pushed bytes, for a push opcode. */
  data?: Buffer;
}

/** The operations of a script; `complete` is false when it ends inside a push (bitcoind prints "[error]"). */
function parseScript(script: Buffer): { ops: ScriptOp[]; complete: boolean } {
  const ops: ScriptOp[] = [];
  let at = 0;
  while (at < script.length) {
    const opcode = script[at++]!;
    if (opcode > OP_PUSHDATA4) {
      ops.push({ opcode });
      continue;
    }
    let length = opcode;
    const lengthBytes = opcode === OP_PUSHDATA1 ? 1 : opcode === OP_PUSHDATA2 ? 2 : opcode === OP_PUSHDATA4 ? 4 : 0;
    if (lengthBytes > 0) {
      if (at + lengthBytes > script.length) return { ops, complete: false };
      length = script.readUIntLE(at, lengthBytes);
      at += lengthBytes;
    }
    if (at + length > script.length) return { ops, complete: false };
    ops.push({ opcode, data: script.subarray(at, at + length) });
    at += length;
  }
  return { ops, complete: true };
}

/** CScriptNum: little-endian, sign in the top bit of the last byte. */
function scriptNumber(bytes: Buffer): number {
  if (bytes.length === 0) return 0;
  let value = 0;
  for (let i = 0; i < bytes.length; i++) value += bytes[i]! * 2 ** (8 * i);
  const last = bytes[bytes.length - 1]!;
  if (last & 0x80) return -(value - 0x80 * 2 ** (8 * (bytes.length - 1)));
  return value;
}

function opcodeName(opcode: number): string {
  if (opcode === 0) return '0';
  if (opcode === OP_1NEGATE) return '-1';
  if (opcode >= OP_1 && opcode <= OP_16) return String(opcode - OP_1 + 1);
  return OPCODE_NAMES.get(opcode) ?? 'OP_UNKNOWN';
}

/** BIP66 strict DER, with the sighash byte at the end (bitcoind's IsValidSignatureEncoding). */
function isDerSignature(sig: Buffer): boolean {
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30 || sig[1] !== sig.length - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= sig.length) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== sig.length) return false;
  const integerOk = (start: number, length: number) =>
    sig[start - 2] === 0x02 &&
    length > 0 &&
    !(sig[start]! & 0x80) &&
    !(length > 1 && sig[start] === 0 && !(sig[start + 1]! & 0x80));
  return integerOk(4, lenR) && integerOk(6 + lenR, lenS);
}

const SIGHASH_NAMES: Record<number, string> = {
  1: 'ALL',
  2: 'NONE',
  3: 'SINGLE',
  0x81: 'ALL|ANYONECANPAY',
  0x82: 'NONE|ANYONECANPAY',
  0x83: 'SINGLE|ANYONECANPAY',
};

/**
 * bitcoind's ScriptToAsmStr: pushes of up to 4 bytes as numbers, longer ones as hex; in a
 * scriptSig (`decodeSighash`), a signature's sighash byte as [ALL] and so on.
 */
export function scriptAsm(script: Buffer, decodeSighash = false): string {
  const { ops, complete } = parseScript(script);
  const unspendable = script[0] === OP_RETURN || script.length > 10_000;
  const words = ops.map(({ opcode, data }) => {
    if (!data) return opcodeName(opcode);
    if (data.length <= 4) return String(scriptNumber(data));
    const sighash =
      decodeSighash && !unspendable && isDerSignature(data) ? SIGHASH_NAMES[data[data.length - 1]!] : undefined;
    return sighash ? `${data.subarray(0, -1).toString('hex')}[${sighash}]` : data.toString('hex');
  });
  if (!complete) words.push('[error]');
  return words.join(' ');
}

type ScriptType =
  | 'nonstandard'
  | 'pubkey'
  | 'pubkeyhash'
  | 'scripthash'
  | 'multisig'
  | 'nulldata'
  | 'witness_v0_keyhash'
  | 'witness_v0_scripthash'
  | 'witness_v1_taproot'
  | 'witness_unknown';

function witnessProgram(script: Buffer): { version: number; program: Buffer } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  if (script[0] !== 0 && (script[0]! < OP_1 || script[0]! > OP_16)) return undefined;
  if (script[1]! + 2 !== script.length) return undefined;
  return { version: script[0] === 0 ? 0 : script[0]! - OP_1 + 1, program: script.subarray(2) };
}

/** CPubKey::ValidSize: the length its first byte announces (compressed, uncompressed or hybrid). */
const isPubkey = (data: Buffer | undefined) =>
  data !== undefined &&
  ((data.length === 33 && [2, 3].includes(data[0]!)) || (data.length === 65 && [4, 6, 7].includes(data[0]!)));
const smallNumber = (opcode: number | undefined) =>
  opcode !== undefined && opcode >= OP_1 && opcode <= OP_16 ? opcode - OP_1 + 1 : undefined;

function isMultisig(ops: ScriptOp[]): boolean {
  if (ops.length < 4 || ops.at(-1)!.opcode !== OP_CHECKMULTISIG) return false;
  const required = smallNumber(ops[0]!.opcode);
  const keys = ops.slice(1, -2);
  return (
    required !== undefined &&
    smallNumber(ops.at(-2)!.opcode) === keys.length &&
    required <= keys.length &&
    keys.every((op) => isPubkey(op.data))
  );
}

/** bitcoind's Solver, for the output types a regtest chain carries, with the address where there is one. */
function classify(script: Buffer): { type: ScriptType; address?: string } {
  const network = networks.regtest;
  if (
    script.length === 23 &&
    script[0] === opcodes.OP_HASH160 &&
    script[1] === 0x14 &&
    script[22] === opcodes.OP_EQUAL
  ) {
    return { type: 'scripthash', address: addressLib.toBase58Check(script.subarray(2, 22), network.scriptHash) };
  }
  const witness = witnessProgram(script);
  if (witness) {
    const address = addressLib.toBech32(witness.program, witness.version, network.bech32);
    if (witness.version === 0 && witness.program.length === 20) return { type: 'witness_v0_keyhash', address };
    if (witness.version === 0 && witness.program.length === 32) return { type: 'witness_v0_scripthash', address };
    if (witness.version === 0) return { type: 'nonstandard' };
    if (witness.version === 1 && witness.program.length === 32) return { type: 'witness_v1_taproot', address };
    return { type: 'witness_unknown', address };
  }
  const { ops, complete } = parseScript(script);
  if (script[0] === OP_RETURN && complete && ops.slice(1).every((op) => op.opcode <= OP_16))
    return { type: 'nulldata' };
  if (ops.length === 2 && isPubkey(ops[0]!.data) && ops[1]!.opcode === OP_CHECKSIG) return { type: 'pubkey' };
  if (
    script.length === 25 &&
    script[0] === opcodes.OP_DUP &&
    script[1] === opcodes.OP_HASH160 &&
    script[2] === 0x14 &&
    script[23] === opcodes.OP_EQUALVERIFY &&
    script[24] === OP_CHECKSIG
  ) {
    return { type: 'pubkeyhash', address: addressLib.toBase58Check(script.subarray(3, 23), network.pubKeyHash) };
  }
  if (complete && isMultisig(ops)) return { type: 'multisig' };
  return { type: 'nonstandard' };
}

export interface ScriptPubKeyJson {
  asm: string;
  hex: string;
  address?: string;
  type: ScriptType;
}

/** An output script as bitcoind's getrawtransaction shows it (without the `desc` descriptor). */
export function scriptPubKeyJson(script: Buffer): ScriptPubKeyJson {
  const { type, address } = classify(script);
  return { asm: scriptAsm(script), hex: script.toString('hex'), ...(address ? { address } : {}), type };
}
