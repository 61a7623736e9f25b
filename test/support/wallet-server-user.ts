// A user of a lab's wallet server over HTTP, signed in with a new secp256k1 key.
import { newKey, REGTEST_ADDRESS, signNonce } from '../wallet-server/support.js';

/** One call to the wallet server with the user's token (and a wallet's key when given). */
export type WalletServerCall = (
  method: string,
  path: string,
  body?: unknown,
  walletKey?: string,
) => Promise<{ status: number; body: any }>;

/**
 * Enrolls a new key at the wallet server of `baseUrl()` (read at each call: a restored lab may have other ports) and
 * signs in.
 */
export async function signInToWalletServer(baseUrl: () => Promise<string>): Promise<WalletServerCall> {
  let token = '';
  const call: WalletServerCall = async (method, path, body, walletKey) => {
    const response = await fetch(`${await baseUrl()}${path}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(walletKey ? { 'x-service-wallet-key': walletKey } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  };
  const key = newKey();
  await call('POST', '/auth/enroll', { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS });
  const { body: challenge } = await call('GET', `/auth/challenge?pubkey=${key.pubkey}`);
  token = (
    await call('POST', '/auth/verify', {
      pubkey: key.pubkey,
      nonce: challenge.nonce,
      signature: await signNonce(key.secretKey, challenge.nonce),
    })
  ).body.access_token;
  return call;
}
