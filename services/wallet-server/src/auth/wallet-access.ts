import type { FastifyRequest } from 'fastify';
import { invalid, notFound, unauthorized } from '../errors.js';
import { isUuid } from '../ids.js';
import { findOwnedWallet, type Wallet } from '../wallets/store.js';
import { principalOf } from './hook.js';
import { WALLET_KEY_HEADER, walletKeyOf } from './wallet-header.js';

/** A wallet named in a path or body: the caller's, and allowed by a wallet-restricted API key;
 * anything else (missing, another user's, outside the key's wallet) is the same 404. */
export async function ownedWallet(request: FastifyRequest, walletId: string): Promise<Wallet> {
  const p = principalOf(request);
  const wallet =
    isUuid(walletId) && (!p.walletRestriction || p.walletRestriction === walletId)
      ? await findOwnedWallet(request.server.db, p.userId, walletId)
      : null;
  if (!wallet) throw notFound(`wallet ${walletId}`);
  return wallet;
}

/** The wallet a payment call acts on, from the x-service-wallet-key header (a wallet id of the
 * caller). Missing or malformed: 400. Not the caller's or outside the API key's wallet: 401, as a
 * wallet key that does not fit the credential. */
export async function walletFromHeader(request: FastifyRequest): Promise<Pick<Wallet, 'id'>> {
  const value = walletKeyOf(request);
  if (!value)
    throw invalid('MISSING_WALLET_KEY', `send the ${WALLET_KEY_HEADER} header with the id of the wallet to act on`);
  if (!isUuid(value)) throw invalid('INVALID_WALLET_KEY', `${WALLET_KEY_HEADER} must be a wallet id (UUID)`);
  const p = principalOf(request);
  const wallet =
    !p.walletRestriction || p.walletRestriction === value
      ? p.wallet !== undefined
        ? p.wallet
        : await findOwnedWallet(request.server.db, p.userId, value)
      : null;
  if (!wallet)
    throw unauthorized(`${WALLET_KEY_HEADER} does not name a wallet this credential may use`, 'WALLET_KEY_REJECTED');
  return wallet;
}

/** JSON-schema of the header, for routes that need it. */
export const walletKeyHeaderSchema = {
  type: 'object',
  required: [WALLET_KEY_HEADER],
  properties: { [WALLET_KEY_HEADER]: { type: 'string', description: 'id of the wallet this call acts on' } },
} as const;
