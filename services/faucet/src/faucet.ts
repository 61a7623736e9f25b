import type { ChainDriver } from '../../../lib/chain/types.js';
import { AddressError, isPayableByLabWallets, parseAddress } from '../../../lib/bitcoin/address.js';
import { invalid, unavailable, upstreamFailed } from '../../../lib/errors.js';
import { takeCooldown } from './claim-cooldown.js';
import { confirmClaim } from './confirm.js';
import type { Cooldowns } from './cooldown.js';
import type { Miner } from './miner.js';
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
  adapterUrl?: string;
}

/** The faucet pays regtest bech32/bech32m addresses only (the spec's `bcrt1` addresses): segwit v0 and taproot. */
export function claimAddress(input: string): string {
  let parsed;
  try {
    parsed = parseAddress(input, 'regtest');
  } catch (error) {
    if (error instanceof AddressError) throw invalid('INVALID_ADDRESS', error.message);
    throw error;
  }
  if (parsed.kind !== 'bech32')
    throw invalid(
      'INVALID_ADDRESS',
      `"${input}" is a base58 address; the faucet pays regtest bech32/bech32m addresses only (bcrt1q... or bcrt1p...)`,
    );
  if (!isPayableByLabWallets(parsed))
    throw invalid(
      'INVALID_ADDRESS',
      `"${input}" is a witness address the faucet's wallet cannot pay (a version other than 0, or a version 1 program that is not taproot's); use a bcrt1q... or bcrt1p... address`,
    );
  return parsed.address;
}

/** One claim: cool-down first, then the payment, then one block so that it confirms. */
export class Faucet {
  constructor(private readonly parts: FaucetParts) {}

  async claim(input: string, clientIp: string): Promise<ClaimResult> {
    const { wallet, miner, driver, cooldowns, claimSat } = this.parts;
    const address = claimAddress(input);
    const release = await takeCooldown(cooldowns, clientIp, address);
    let txid: string;
    let heightAtSend: number;
    try {
      heightAtSend = await driver.getBlockCount();
      txid = await wallet.send(address, claimSat);
    } catch (error) {
      await release();
      if (error instanceof WalletEmptyError) {
        throw unavailable(
          'FAUCET_EMPTY',
          `the faucet is empty: ${error.message}. Fund the faucet's node (e.g. mine to it or send to its wallet) and try again`,
        );
      }
      throw upstreamFailed('SEND_FAILED', `the faucet could not send: ${(error as Error).message}`);
    }
    const block = await confirmClaim(miner, driver, txid, heightAtSend);
    return { txid, amount_sat: claimSat, address, block_hash: block.hash, block_height: block.height };
  }

  async status(): Promise<FaucetStatus> {
    const { wallet, driver, miner, claimSat, cooldowns, adapterUrl } = this.parts;
    const [balance, height] = await Promise.all([wallet.balance(), driver.getBlockCount()]).catch((error: Error) => {
      throw upstreamFailed('DEPENDENCY_FAILED', `the faucet cannot read its wallet or the chain: ${error.message}`);
    });
    return {
      network: 'regtest',
      balance_sat: balance.confirmedSat,
      pending_balance_sat: balance.pendingSat,
      claim_amount_sat: claimSat,
      cooldown_seconds: cooldowns.seconds,
      height,
      mining: miner.kind,
      adapter_url: adapterUrl ?? null,
    };
  }
}
