import { opcodes } from 'bitcoinjs-lib';

/** Opcode names as rust-bitcoin (and so Esplora) prints them: OP_0, OP_PUSHNUM_1..16, OP_CLTV... */
const OPCODE_NAMES = (() => {
  const names = new Map<number, string>();
  for (const [name, code] of Object.entries(opcodes))
    if (typeof code === 'number' && !names.has(code)) names.set(code, name);
  names.set(0x00, 'OP_0');
  names.set(0x4f, 'OP_PUSHNUM_NEG1');
  for (let n = 1; n <= 16; n++) names.set(0x50 + n, `OP_PUSHNUM_${n}`);
  names.set(0xb1, 'OP_CLTV');
  names.set(0xb2, 'OP_CSV');
  return names;
})();

/** Esplora-style assembly: `OP_0 OP_PUSHBYTES_20 <hex>`; a truncated push ends in `<push past end>`. */
export function scriptAsm(script: Uint8Array): string {
  const parts: string[] = [];
  const bytes = Buffer.from(script);
  let i = 0;
  while (i < bytes.length) {
    const op = bytes[i++]!;
    let length: number | undefined;
    let name: string;
    if (op >= 0x01 && op <= 0x4b) {
      length = op;
      name = `OP_PUSHBYTES_${op}`;
    } else if (op >= 0x4c && op <= 0x4e) {
      const width = op === 0x4c ? 1 : op === 0x4d ? 2 : 4;
      if (i + width > bytes.length) return [...parts, '<push past end>'].join(' ');
      length = width === 1 ? bytes.readUInt8(i) : width === 2 ? bytes.readUInt16LE(i) : bytes.readUInt32LE(i);
      i += width;
      name = `OP_PUSHDATA${width === 4 ? 4 : width}`;
    } else {
      parts.push(OPCODE_NAMES.get(op) ?? `OP_UNKNOWN_${op}`);
      continue;
    }
    if (i + length > bytes.length) return [...parts, '<push past end>'].join(' ');
    parts.push(name, bytes.subarray(i, i + length).toString('hex'));
    i += length;
  }
  return parts.join(' ');
}

export type ScriptType =
  | 'p2pkh'
  | 'p2sh'
  | 'v0_p2wpkh'
  | 'v0_p2wsh'
  | 'v1_p2tr'
  | 'op_return'
  | 'p2pk'
  | 'empty'
  | 'unknown';

export function scriptType(script: Uint8Array): ScriptType {
  const s = Buffer.from(script);
  if (s.length === 0) return 'empty';
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac)
    return 'p2pkh';
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'p2sh';
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return 'v0_p2wpkh';
  if (s.length === 34 && s[0] === 0x00 && s[1] === 0x20) return 'v0_p2wsh';
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return 'v1_p2tr';
  if (s[0] === 0x6a) return 'op_return';
  if (((s.length === 35 && s[0] === 0x21) || (s.length === 67 && s[0] === 0x41)) && s[s.length - 1] === 0xac)
    return 'p2pk';
  return 'unknown';
}
