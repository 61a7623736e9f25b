import type { ChainDriver } from '../../../lib/chain/types.js';
import { AddressError, parseAddress } from '../../../lib/bitcoin/address.js';
import { invalid, rateLimited, unavailable, upstreamFailed } from '../../../lib/errors.js';
import type { Cooldowns } from './cooldown.js';
import type { MinedBlock, Miner } from './miner.js';
import { WalletEmptyError, type FaucetWallet } from './wallet.js';

export interface ClaimResult {
  txid: string;
  amount_sat: number;
  address: string;
  block_hash: string;
  block_height: number;
}

export interface FaucetStatus {
  network: 'regtest';
  balance_sat: number;
  pending_balance_sat: number;
  claim_amount_sat: number;
  cooldown_seconds: number;
  height: number;
  mining: Miner['kind'];
  adapter_url: string | null;
}

export interface FaucetParts {
  wallet: FaucetWallet;
  miner: Miner;
  cooldowns: Cooldowns;
  driver: ChainDriver;
  claimSat: number;
  cooldownSeconds: number;
  adapterUrl?: string;
}

const MAX_MINE_ATTEMPTS = 3;

const duration = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`);

/** The faucet pays regtest bech32/bech32m addresses only (the spec's `bcrt1` addresses). */
export function claimAddress(input: string): string {
  let parsed;
  try {
    parsed = parseAddress(input, 'regtest');
  } catch (error) {
    if (error instanceof AddressError) throw invalid('INVALID_ADDRESS', error.message);
    throw error;
  }
  if (parsed.kind !== 'bech32') throw invalid('INVALID_ADDRESS', `"${input}" is a base58 address; the faucet pays regtest bech32/bech32m addresses only (bcrt1q... or bcrt1p...)`);
  return parsed.address;
}

const unavailableStore = (error: unknown) =>
  unavailable('COOLDOWN_STORE_UNAVAILABLE', `the faucet cannot reach its cool-down store (Redis), so it pays nobody until it can: ${(error as Error).message}`);

/** One claim: cool-down first, then the payment, then one block so that it confirms. */
export class Faucet {
  constructor(private readonly parts: FaucetParts) {}

  async claim(input: string, clientIp: string): Promise<ClaimResult> {
    const { wallet, cooldowns, claimSat } = this.parts;
    const address = claimAddress(input);
    const cooldown = await cooldowns.acquire(clientIp, address).catch((error: unknown) => {
      throw unavailableStore(error);
    });
    if (!cooldown.granted) {
      const who = cooldown.blockedBy.map((subject) => (subject === 'ip' ? `your IP ${clientIp}` : `address ${address}`)).join(' and ');
      const refusal = rateLimited('COOLDOWN', `${who} claimed less than ${duration(this.parts.cooldownSeconds)} ago; try again in ${cooldown.retryAfterSeconds} s`, cooldown.retryAfterSeconds);
      refusal.details.blocked_by = cooldown.blockedBy;
      throw refusal;
    }
    let txid: string;
    let heightAtSend: number;
    try {
      heightAtSend = await this.parts.driver.getBlockCount();
      txid = await wallet.send(address, claimSat);
    } catch (error) {
      await cooldown.release().catch(() => undefined);
      if (error instanceof WalletEmptyError) {
        throw unavailable('FAUCET_EMPTY', `the faucet is empty: ${error.message}. Fund the faucet's node (e.g. mine to it or send to its wallet) and try again`);
      }
      throw upstreamFailed('SEND_FAILED', `the faucet could not send: ${(error as Error).message}`);
    }
    // The coins are gone from here on, so the cool-down stays even if mining fails.
    try {
      const block = await this.mineUntilConfirmed(txid, heightAtSend);
      return { txid, amount_sat: claimSat, address, block_hash: block.hash, block_height: block.height };
    } catch (error) {
      const failure = upstreamFailed('MINE_FAILED', `sent ${txid} but could not mine a block (${(error as Error).message}); the transaction waits in the mempool and confirms with the next block`, error);
      failure.details.txid = txid;
      throw failure;
    }
  }

  /**
   * Mines one block and returns the block that holds `txid`. With claims in flight together, the
   * block another claim mined may already hold this claim's transaction (it was in the mempool when
   * that block was built), so this claim's own block can be empty of it: the blocks back to the
   * height at sending time are searched. Only if none holds it (the node left it out of its block
   * template) is another block mined.
   */
  private async mineUntilConfirmed(txid: string, heightAtSend: number): Promise<MinedBlock> {
    const { miner, driver } = this.parts;
    for (let attempt = 1; ; attempt++) {
      const mined = await miner.mineOne();
      for (let hash: string | undefined = mined.hash; hash; ) {
        const block = await driver.getBlockSummary(hash);
        if (block.height <= heightAtSend) break;
        if (block.txids.includes(txid)) return { hash: block.hash, height: block.height };
        hash = block.previousBlockHash;
      }
      if (attempt === MAX_MINE_ATTEMPTS) throw new Error(`${attempt} blocks were mined and none holds the transaction`);
    }
  }

  async status(): Promise<FaucetStatus> {
    const { wallet, driver, miner, claimSat, cooldownSeconds, adapterUrl } = this.parts;
    const [balance, height] = await Promise.all([wallet.balance(), driver.getBlockCount()]).catch((error: Error) => {
      throw upstreamFailed('DEPENDENCY_FAILED', `the faucet cannot read its wallet or the chain: ${error.message}`);
    });
    return {
      network: 'regtest',
      balance_sat: balance.confirmedSat,
      pending_balance_sat: balance.pendingSat,
      claim_amount_sat: claimSat,
      cooldown_seconds: cooldownSeconds,
      height,
      mining: miner.kind,
      adapter_url: adapterUrl ?? null,
    };
  }
}
