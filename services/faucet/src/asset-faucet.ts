// The asset faucet: a configured amount of one of the lab's RGB assets to an RGB invoice (blinded or
// witness) a user pastes, with the cool-downs of BTC claims (per client IP and per invoice recipient).
import type { ChainDriver } from '../../../lib/chain/types.js';
import { unavailable, upstreamFailed } from '../../../lib/errors.js';
import { assetClaimOf, type AssetClaimRequest, type AssetOffer } from './asset-invoice.js';
import type { FaucetAssetNode } from './asset-node.js';
import { takeCooldown } from './claim-cooldown.js';
import { confirmClaim } from './confirm.js';
import type { Cooldowns } from './cooldown.js';
import type { Miner } from './miner.js';
import { SerialQueue } from './serial-queue.js';

export interface AssetClaimResult {
  txid: string;
  asset_id: string;
  ticker: string;
  amount: number;
  recipient_id: string;
  block_hash: string;
  block_height: number;
}

export interface AssetFaucetStatus {
  ticker: string;
  asset_id: string;
  claim_amount: number;
  /** The faucet node's balance of the asset, in its smallest unit. */
  balance: { settled: number; future: number; spendable: number };
}

export interface AssetFaucetParts {
  node: FaucetAssetNode;
  offer: AssetOffer;
  miner: Miner;
  driver: ChainDriver;
  /** Cool-downs of asset claims: per IP and per `recipient`, apart from those of BTC claims. */
  cooldowns: Cooldowns;
  /** How long a claim waits for the faucet's node to see its transfer settled after the block. */
  settleTimeoutMs?: number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * One claim: the invoice checked, the cool-down taken, then the asset sent as a donation (broadcast
 * at once), one block mined, and the faucet's node refreshed until its side is settled. The payee's
 * side settles on the payee's own refresh. Claims are paid one at a time: a send spends the
 * allocation holding the faucet's asset, whose change is spendable again only once settled.
 */
export class AssetFaucet {
  private readonly claims = new SerialQueue();

  constructor(private readonly parts: AssetFaucetParts) {}

  async claim(invoice: string, clientIp: string): Promise<AssetClaimResult> {
    const { node, offer, cooldowns } = this.parts;
    const request = assetClaimOf(await node.decodeInvoice(invoice), offer, nowSeconds());
    const release = await takeCooldown(cooldowns, clientIp, request.recipientId);
    return this.claims.run(() => this.pay(request, release));
  }

  private async pay(request: AssetClaimRequest, release: () => Promise<void>): Promise<AssetClaimResult> {
    const { node, offer, miner, driver } = this.parts;
    let txid: string;
    let heightAtSend: number;
    try {
      const { spendable } = await node.balance(offer.assetId);
      if (spendable < request.amount) {
        throw unavailable(
          'FAUCET_EMPTY',
          `the asset faucet is empty: its node can spend ${spendable} ${offer.ticker} and this claim takes ${request.amount}. Send ${offer.ticker} to the faucet's node and try again`,
        );
      }
      heightAtSend = await driver.getBlockCount();
      txid = await node.donate(offer.assetId, request);
    } catch (error) {
      await release();
      throw error;
    }
    const block = await confirmClaim(miner, driver, txid, heightAtSend);
    try {
      await node.waitSettled(offer.assetId, txid, this.parts.settleTimeoutMs ?? 60_000);
    } catch (error) {
      const failure = upstreamFailed(
        'SETTLE_FAILED',
        `sent ${txid}, confirmed in block ${block.height}, but the faucet's node did not see it settled (${(error as Error).message}); your wallet settles it on its next refresh`,
        error,
      );
      failure.details.txid = txid;
      throw failure;
    }
    return {
      txid,
      asset_id: offer.assetId,
      ticker: offer.ticker,
      amount: request.amount,
      recipient_id: request.recipientId,
      block_hash: block.hash,
      block_height: block.height,
    };
  }

  async status(): Promise<AssetFaucetStatus> {
    const { node, offer } = this.parts;
    const { settled, future, spendable } = await node.balance(offer.assetId);
    return {
      ticker: offer.ticker,
      asset_id: offer.assetId,
      claim_amount: offer.amount,
      balance: { settled, future, spendable },
    };
  }
}
