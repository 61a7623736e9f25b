import * as secp from '@noble/secp256k1';
import { payments, networks } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { newPrivateKeyHex, regtestKey } from '../../control-plane/src/wallet/keys.js';

describe('regtestKey', () => {
  it('answers the compressed public key and P2WPKH address of the key, and signatures that verify against them', () => {
    for (const privateKeyHex of [
      newPrivateKeyHex(),
      newPrivateKeyHex(),
      '0000000000000000000000000000000000000000000000000000000000000001',
    ]) {
      const key = regtestKey(privateKeyHex);
      const expected = secp.getPublicKey(Buffer.from(privateKeyHex, 'hex'), true);
      expect(Buffer.from(key.signer.publicKey).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
      expect(key.address).toBe(payments.p2wpkh({ pubkey: expected, network: networks.regtest }).address);
      const hash = new Uint8Array(32).fill(7);
      expect(secp.verify(key.signer.sign(hash), hash, expected, { prehash: false })).toBe(true);
    }
  });
});
