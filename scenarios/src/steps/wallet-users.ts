// The wallet-server users of one run: each has a secp256k1 key generated for it, as a wallet app
// would, and the tokens of its last sign-in.
import { getPublicKey, utils } from '@noble/secp256k1';
import { StepFailure } from './failure.js';

export interface WalletUser {
  secretKey: Uint8Array;
  /** 33-byte compressed public key, hex. */
  pubkey: string;
  enrolled: boolean;
  accessToken?: string;
}

export class WalletUsers {
  private readonly users = new Map<string, WalletUser>();

  /** The user of that name, with a fresh key the first time it is named. */
  get(name: string): WalletUser {
    let user = this.users.get(name);
    if (!user) {
      const secretKey = utils.randomSecretKey();
      user = { secretKey, pubkey: Buffer.from(getPublicKey(secretKey, true)).toString('hex'), enrolled: false };
      this.users.set(name, user);
    }
    return user;
  }

  accessToken(name: string): string {
    const token = this.users.get(name)?.accessToken;
    if (!token)
      throw new StepFailure(`user "${name}" has not signed in: add a wallet_server.sign_in step for it first`, {
        code: 'NOT_SIGNED_IN',
      });
    return token;
  }
}
