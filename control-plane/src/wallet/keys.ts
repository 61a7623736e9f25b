import { createECDH } from 'node:crypto';
import * as secp from '@noble/secp256k1';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { payments, networks } from 'bitcoinjs-lib';

secp.hashes.sha256 = sha256;
secp.hashes.hmacSha256 = (key, message) => hmac(sha256, key, message);

export function newPrivateKeyHex(): string {
  return Buffer.from(secp.utils.randomSecretKey()).toString('hex');
}

/** A regtest P2WPKH key: its address and a bitcoinjs signer over @noble/secp256k1. */
export function regtestKey(privateKeyHex: string) {
  const privateKey = Buffer.from(privateKeyHex, 'hex');
  const publicKey = compressedPublicKey(privateKey);
  const payment = payments.p2wpkh({ pubkey: publicKey, network: networks.regtest });
  if (!payment.address || !payment.output) throw new Error('could not derive a P2WPKH address');
  return {
    address: payment.address,
    outputScript: payment.output,
    signer: {
      publicKey,
      sign: (hash: Uint8Array) => secp.sign(hash, privateKey, { prehash: false }),
    },
  };
}

/**
 * The compressed public key, from OpenSSL: noble's first point multiplication builds its tables,
 * costly in the control plane (it runs without V8's optimizing compiler) and on the way of every
 * bring-up, whose chain node is launched with the lab wallet's address. Signing still builds them,
 * when the lab wallet first spends.
 */
function compressedPublicKey(privateKey: Buffer): Uint8Array {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  return new Uint8Array(ecdh.getPublicKey(null, 'compressed'));
}
