import type { AuthenticatedLnd } from 'ln-service';
import { createChainAddress, sendToChainAddress } from '../../../lib/lightning/lnd/methods.js';
import { getDefaultAccountBalance } from '../../../lib/lightning/lnd/rpc.js';
import { SerialQueue } from './serial-queue.js';

export interface WalletBalance {
  confirmedSat: number;
  pendingSat: number;
}

/** The on-chain wallet the faucet pays from. */
export interface FaucetWallet {
  /** Returns the txid; throws WalletEmptyError when the wallet cannot pay the amount. */
  send(address: string, amountSat: number): Promise<string>;
  balance(): Promise<WalletBalance>;
  /** An address of the wallet itself, for the coinbase of blocks the faucet mines on its own. */
  ownAddress(): Promise<string>;
}

export class WalletEmptyError extends Error {
  constructor(detail: string) {
    super(`the faucet wallet cannot pay this claim: ${detail}`);
    this.name = 'WalletEmptyError';
  }
}

/** ln-service/lightning reject with [status, code, details]; turn that into an Error with words. */
function lndFailure(error: unknown): Error {
  if (!Array.isArray(error)) return error instanceof Error ? error : new Error(String(error));
  const [, code, details] = error as [number, string, { err?: { details?: string } } | undefined];
  const detail = details?.err?.details;
  if (code === 'InsufficientBalanceToSendToChainAddress' || /insufficient funds/i.test(detail ?? ''))
    return new WalletEmptyError(detail ?? code);
  return new Error(`lnd: ${code}${detail ? `: ${detail}` : ''}`);
}

/**
 * An lnd node's on-chain wallet. Sends go one at a time through an in-process queue, and may spend
 * unconfirmed change: claims that arrive together each get their own transaction, built after the
 * previous one, so no two of them can pick the same input.
 */
export class LndWallet implements FaucetWallet {
  private readonly sends = new SerialQueue();
  private address?: Promise<string>;

  constructor(private readonly lnd: AuthenticatedLnd) {}

  send(address: string, amountSat: number): Promise<string> {
    return this.sends.run(async () => {
      try {
        return (
          await sendToChainAddress({
            lnd: this.lnd,
            address,
            tokens: amountSat,
            utxo_confirmations: 0,
            description: 'reglab faucet claim',
          })
        ).id;
      } catch (error) {
        throw lndFailure(error);
      }
    });
  }

  async balance(): Promise<WalletBalance> {
    try {
      const { confirmedSat, unconfirmedSat } = await getDefaultAccountBalance(this.lnd);
      return { confirmedSat, pendingSat: unconfirmedSat };
    } catch (error) {
      throw lndFailure(error);
    }
  }

  ownAddress(): Promise<string> {
    this.address ??= createChainAddress({ lnd: this.lnd, format: 'p2wpkh' }).then(
      ({ address }) => address,
      (error: unknown) => {
        this.address = undefined;
        throw lndFailure(error);
      },
    );
    return this.address;
  }
}
