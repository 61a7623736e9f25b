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
  const publicKey = secp.getPublicKey(privateKey, true);
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
