import type { LightningClient, OnchainSend } from '../../../lib/lightning/client.js';
import { LightningError } from '../../../lib/lightning/errors.js';
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

/**
 * A Lightning node's on-chain wallet (lib/lightning: an lnd node's). Sends go one at a time through
 * an in-process queue, and may spend unconfirmed change: claims that arrive together each get their
 * own transaction, built after the previous one, so no two of them can pick the same input.
 */
export class NodeWallet implements FaucetWallet {
  private readonly sends = new SerialQueue();
  private readonly sendOnchain: (request: OnchainSend) => Promise<string>;
  private address?: Promise<string>;

  constructor(private readonly node: LightningClient) {
    const { sendOnchain } = node;
    if (!sendOnchain)
      throw new Error(`the faucet sends from a node's on-chain wallet; a ${node.implementation} node sends none`);
    this.sendOnchain = sendOnchain.bind(node);
  }

  send(address: string, amountSat: number): Promise<string> {
    return this.sends.run(async () => {
      try {
        return await this.sendOnchain({ address, amountSat, minConfirmations: 0, label: 'reglab faucet claim' });
      } catch (error) {
        if (error instanceof LightningError && error.code === 'INSUFFICIENT_FUNDS')
          throw new WalletEmptyError(error.message);
        throw error;
      }
    });
  }

  async balance(): Promise<WalletBalance> {
    const { confirmedSat, unconfirmedSat } = await this.node.onchainBalance();
    return { confirmedSat, pendingSat: unconfirmedSat };
  }

  ownAddress(): Promise<string> {
    this.address ??= this.node.newAddress().catch((error: unknown) => {
      this.address = undefined;
      throw error;
    });
    return this.address;
  }
}
