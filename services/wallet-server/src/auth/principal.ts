import type { Wallet } from '../wallets/store.js';

export type Scope = 'read' | 'invoice' | 'full';

/** Who is calling: resolved by the auth hook from an access token or an API key. */
export interface Principal {
  userId: string;
  pubkey: string;
  isAdmin: boolean;
  via: 'access_token' | 'api_key';
  /** 'full' for access tokens. */
  scope: Scope;
  apiKeyId: string | null;
  /** Set when an API key is restricted to one wallet. */
  walletRestriction: string | null;
  /** Sign-in session of an access token (revoked by logout). */
  sessionId: string | null;
  /** The wallet x-service-wallet-key names, when it was looked up with the credential: null when it
   * is not the caller's. Its id only: whether it is the caller's is all the credential tells. */
  wallet?: Pick<Wallet, 'id'> | null;
}

/** Per-route options, given as Fastify route `config`. */
export interface RouteAuthConfig {
  /** 'user' (default): bearer required; 'admin': bearer + admin pubkey; 'public': none. */
  auth?: 'public' | 'user' | 'admin';
  /** Least scope needed; default 'read' for GET/HEAD and 'full' for everything else. */
  scope?: Scope;
}

const RANK: Record<Scope, number> = { read: 0, invoice: 1, full: 2 };
export const scopeAllows = (has: Scope, needs: Scope) => RANK[has] >= RANK[needs];
