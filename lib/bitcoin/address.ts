import { sha256 } from '@noble/hashes/sha2.js';
import { address as bitcoinAddress, networks, type Network } from 'bitcoinjs-lib';

export type NetworkName = 'regtest' | 'testnet' | 'bitcoin';

export const NETWORKS: Record<NetworkName, Network> = {
  regtest: networks.regtest,
  testnet: networks.testnet,
  bitcoin: networks.bitcoin,
};

/** Why an address was refused, in words a user can act on. */
export class AddressError extends Error {
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(`"${address}" ${reason}`);
    this.name = 'AddressError';
  }
}

export interface ParsedAddress {
  /** As given, lower-cased when bech32 (bech32 is case-insensitive; base58 is not). */
  address: string;
  kind: 'bech32' | 'base58';
  script: Uint8Array;
  /** sha256(scriptPubKey) byte-reversed, as hex: the key an Electrum indexer is asked by. */
  scriptHash: string;
}

const BECH32_HRP: Record<string, NetworkName> = { bcrt: 'regtest', bc: 'bitcoin', tb: 'testnet' };
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;
const BASE58_VERSIONS: Record<number, NetworkName> = {
  0x00: 'bitcoin',
  0x05: 'bitcoin',
  0x6f: 'testnet',
  0xc4: 'testnet',
};
const NETWORK_WORDS: Record<NetworkName, string> = {
  bitcoin: 'a mainnet',
  testnet: 'a testnet/signet',
  regtest: 'a regtest',
};

function bech32Polymod(values: number[]): number {
  const generator = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) checksum ^= generator[i]!;
  }
  return checksum >>> 0;
}

/** True when the string's bech32 or bech32m checksum holds (BIP-173/BIP-350). */
function bech32ChecksumHolds(lower: string, separator: number): boolean {
  const hrp = lower.slice(0, separator);
  const data = [...lower.slice(separator + 1)].map((char) => BECH32_CHARSET.indexOf(char));
  const expanded = [
    ...[...hrp].map((c) => c.charCodeAt(0) >> 5),
    0,
    ...[...hrp].map((c) => c.charCodeAt(0) & 31),
    ...data,
  ];
  const polymod = bech32Polymod(expanded);
  return polymod === BECH32_CONST || polymod === BECH32M_CONST;
}

export function scriptHashOf(script: Uint8Array): string {
  return Buffer.from(sha256(script)).reverse().toString('hex');
}

/**
 * Decodes an address of `network` to its output script, or throws an AddressError saying why not:
 * another network's address, a bad checksum, a malformed witness program, or no address at all.
 */
export function parseAddress(input: string, network: NetworkName): ParsedAddress {
  const trimmed = input.trim();
  const expected = NETWORKS[network];
  const lower = trimmed.toLowerCase();
  const hrp = Object.keys(BECH32_HRP).find((prefix) => lower.startsWith(`${prefix}1`));
  if (hrp) {
    const hrpNetwork = BECH32_HRP[hrp]!;
    const separator = hrp.length;
    if (trimmed !== lower && trimmed !== trimmed.toUpperCase())
      throw new AddressError(input, 'mixes upper and lower case, which bech32 forbids');
    if (hrpNetwork !== network) {
      throw new AddressError(
        input,
        `is ${NETWORK_WORDS[hrpNetwork]} address (${hrp}1...); this lab runs ${network}, whose bech32 addresses start with ${expected.bech32}1`,
      );
    }
    const stray = [...lower.slice(separator + 1)].find((char) => !BECH32_CHARSET.includes(char));
    if (stray !== undefined)
      throw new AddressError(
        input,
        `contains "${stray}", which bech32 never uses (no 1, b, i, o): check it for a typo`,
      );
    if (!bech32ChecksumHolds(lower, separator))
      throw new AddressError(input, 'has a bad bech32 checksum: check it for a typo');
    let script: Uint8Array;
    try {
      const { version, data } = bitcoinAddress.fromBech32(lower);
      script = witnessScript(version, data);
    } catch {
      throw new AddressError(
        input,
        'is not a valid witness address (wrong checksum kind for its version, or a program of the wrong length)',
      );
    }
    return { address: lower, kind: 'bech32', script, scriptHash: scriptHashOf(script) };
  }
  let version: number;
  try {
    version = bitcoinAddress.fromBase58Check(trimmed).version;
  } catch (error) {
    const checksum = (error as Error).message.includes('checksum');
    throw new AddressError(
      input,
      checksum
        ? 'has a bad base58 checksum: check it for a typo'
        : `is not a Bitcoin address (expected ${expected.bech32}1... or a base58 address)`,
    );
  }
  const versionNetwork = BASE58_VERSIONS[version];
  if (versionNetwork === 'bitcoin' && network !== 'bitcoin') {
    throw new AddressError(
      input,
      `is a mainnet address; this lab runs ${network}, whose addresses start with ${expected.bech32}1 (or m, n, 2 for base58)`,
    );
  }
  let script: Uint8Array;
  try {
    script = bitcoinAddress.toOutputScript(trimmed, expected);
  } catch {
    throw new AddressError(input, `is a base58 address with version ${version}, which is not one of ${network}'s`);
  }
  return { address: trimmed, kind: 'base58', script, scriptHash: scriptHashOf(script) };
}

/**
 * Witness scripts are built and read here rather than by bitcoinjs, which wants an elliptic-curve
 * library for taproot only to check the key; an address needs no such check.
 */
const OP_0 = 0x00;
const OP_1 = 0x51;
const TAPROOT_PROGRAM_BYTES = 32;

/**
 * Whether the lab's wallets (lnd's, btcd's coinbase) can pay the address: base58, segwit v0 or
 * taproot. Witness versions 2 to 16, and version 1 programs other than taproot's 32 bytes, are valid
 * addresses (BIP 350) that they refuse ("unsupported witness version"): the payer's input, not a
 * failure of the lab.
 */
export function isPayableByLabWallets(parsed: ParsedAddress): boolean {
  if (parsed.kind === 'base58') return true;
  const [version, programLength] = parsed.script;
  return version === OP_0 || (version === OP_1 && programLength === TAPROOT_PROGRAM_BYTES);
}

function witnessScript(version: number, program: Uint8Array): Uint8Array {
  const lengthOk =
    version === 0 ? program.length === 20 || program.length === 32 : program.length >= 2 && program.length <= 40;
  if (version > 16 || !lengthOk) throw new Error('invalid witness program');
  return Uint8Array.from([version === 0 ? 0 : 0x50 + version, program.length, ...program]);
}

/** The address of an output script, or undefined for scripts without one (OP_RETURN, bare multisig...). */
export function addressOfScript(script: Uint8Array, network: Network): string | undefined {
  const op = script[0];
  const isWitness =
    script.length >= 4 &&
    script.length <= 42 &&
    (op === 0 || (op! >= 0x51 && op! <= 0x60)) &&
    script[1] === script.length - 2;
  try {
    if (isWitness) return bitcoinAddress.toBech32(script.subarray(2), op === 0 ? 0 : op! - 0x50, network.bech32);
    return bitcoinAddress.fromOutputScript(script, network);
  } catch {
    return undefined;
  }
}
