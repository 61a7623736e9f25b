// A user of a lab's wallet server over HTTP, signed in with a secp256k1 key.
import { newKey, REGTEST_ADDRESS, signNonce } from '../wallet-server/support.js';

/** One call to the wallet server with the user's token (and a wallet's key when given). */
export type WalletServerCall = (
  method: string,
  path: string,
  body?: unknown,
  walletKey?: string,
) => Promise<{ status: number; body: any }>;

export type UserKey = { secretKey: Uint8Array; pubkey: string };

/**
 * An access token of the wallet server at `base` for `key`, enrolled first unless it already is
 * (a key another file of the run enrolled on a shared lab: ALREADY_ENROLLED).
 */
export async function walletServerToken(base: string, key: UserKey): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const enrolled = await post('/auth/enroll', { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS });
  if (!enrolled.ok && (await enrolled.json()).error?.code !== 'ALREADY_ENROLLED')
    throw new Error(`enrolling ${key.pubkey} answered ${enrolled.status}`);
  const challenge = await (await fetch(`${base}/auth/challenge?pubkey=${key.pubkey}`)).json();
  const verified = await post('/auth/verify', {
    pubkey: key.pubkey,
    nonce: challenge.nonce,
    signature: await signNonce(key.secretKey, challenge.nonce),
  });
  const answer = await verified.json();
  if (!verified.ok) throw new Error(`signing in ${key.pubkey} answered ${verified.status}: ${JSON.stringify(answer)}`);
  return answer.access_token;
}

/** Signs in with `key` (a new one unless given) at the wallet server of `baseUrl()` (read at each call: a restored lab may have other ports). */
export async function signInToWalletServer(
  baseUrl: () => Promise<string>,
  key: UserKey = newKey(),
): Promise<WalletServerCall> {
  const token = await walletServerToken(await baseUrl(), key);
  return async (method, path, body, walletKey) => {
    const response = await fetch(`${await baseUrl()}${path}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        authorization: `Bearer ${token}`,
        ...(walletKey ? { 'x-service-wallet-key': walletKey } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  };
}
