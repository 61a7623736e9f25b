import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { Point, verifyAsync } from '@noble/secp256k1';
import type { Network } from '../config.js';

bitcoin.initEccLib(ecc); // taproot (bech32m) addresses need it

const NETWORKS: Record<Network, bitcoin.Network> = {
  regtest: bitcoin.networks.regtest,
  testnet: bitcoin.networks.testnet,
  signet: bitcoin.networks.testnet,
  bitcoin: bitcoin.networks.bitcoin,
};

export const PUBKEY_PATTERN = '^0[23][0-9a-fA-F]{64}$';

/** A 33-byte compressed key that is a point on the curve. */
export function isValidPubkey(hex: string): boolean {
  if (!new RegExp(PUBKEY_PATTERN).test(hex)) return false;
  try {
    Point.fromHex(hex.toLowerCase());
    return true;
  } catch {
    return false;
  }
}

export function isValidAddress(address: string, network: Network): boolean {
  try {
    bitcoin.address.toOutputScript(address, NETWORKS[network]);
    return true;
  } catch {
    return false;
  }
}

/** The text a client signs to sign in; the signature is ECDSA over sha256(utf8(message)). */
export const loginMessage = (nonce: string) => `reglab-wallet-server:login:${nonce}`;

/** Signatures are 64-byte compact (r || s) in hex; DER is not accepted. High-S is accepted, since a
 * single-use nonce makes malleability harmless here. */
export const SIGNATURE_PATTERN = '^[0-9a-fA-F]{128}$';

export async function verifyLoginSignature(pubkeyHex: string, nonce: string, signatureHex: string): Promise<boolean> {
  try {
    const sig = Buffer.from(signatureHex, 'hex');
    return await verifyAsync(sig, Buffer.from(loginMessage(nonce), 'utf8'), Buffer.from(pubkeyHex, 'hex'), {
      lowS: false,
    });
  } catch {
    return false;
  }
}
