import { Psbt, address as addressLib, networks } from 'bitcoinjs-lib';
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';
import { FALLBACK_FEE_SAT_PER_VB } from '../../../lib/chain/types.js';
import { regtestKey } from './keys.js';

export interface Payout {
  address: string;
  amountSat: bigint;
}

interface Utxo {
  txid: string;
  vout: number;
  valueSat: bigint;
}

const COINBASE_MATURITY = 100;
const DUST_SAT = 546n;

/**
 * The lab's own coins. Every block the lab mines without a target address pays to this key, and
 * funding (of nodes, of any address) spends from it: a lab can fund without any Lightning node.
 * Its coins are found on the chain itself (btcd's address index; Core's scantxoutset), so there is
 * no second bookkeeping to drift. Callers serialise sends (the lab's funding queue).
 */
export class LabWallet {
  private readonly key: ReturnType<typeof regtestKey>;
  /** The outputs last found, and the chain state (tip and mempool) they were found in. */
  private found?: { state: string; unspent: { spendable: Utxo[]; immature: Utxo[] } };

  constructor(
    private readonly chain: RpcChainDriver,
    privateKeyHex: string,
  ) {
    this.key = regtestKey(privateKeyHex);
  }

  get address(): string {
    return this.key.address;
  }

  async balanceSat(): Promise<{ spendable: bigint; immature: bigint }> {
    const { spendable, immature } = await this.listUnspent();
    const sum = (utxos: Utxo[]) => utxos.reduce((total, utxo) => total + utxo.valueSat, 0n);
    return { spendable: sum(spendable), immature: sum(immature) };
  }

  /** Pays every payout in one transaction; returns its txid (unconfirmed: mine to confirm). */
  async send(payouts: Payout[], feeRateSatPerVb = FALLBACK_FEE_SAT_PER_VB): Promise<string> {
    if (payouts.length === 0) throw new Error('nothing to pay');
    for (const payout of payouts) {
      addressLib.toOutputScript(payout.address, networks.regtest);
      if (payout.amountSat < DUST_SAT)
        throw new Error(`${payout.amountSat} sat to ${payout.address} is below the dust limit of ${DUST_SAT} sat`);
    }
    const target = payouts.reduce((total, payout) => total + payout.amountSat, 0n);
    const { spendable } = await this.listUnspent();
    spendable.sort((a, b) => (a.valueSat > b.valueSat ? -1 : a.valueSat < b.valueSat ? 1 : 0));
    const chosen: Utxo[] = [];
    let gathered = 0n;
    let fee = 0n;
    for (const utxo of spendable) {
      chosen.push(utxo);
      gathered += utxo.valueSat;
      fee = BigInt(Math.ceil(estimateVsize(chosen.length, payouts.length + 1) * feeRateSatPerVb));
      if (gathered >= target + fee) break;
    }
    if (gathered < target + fee) {
      throw new Error(
        `the lab wallet has ${gathered} sat spendable, ${target + fee} sat are needed: mine more blocks (reglab mine 101)`,
      );
    }
    const psbt = new Psbt({ network: networks.regtest });
    for (const utxo of chosen) {
      psbt.addInput({
        hash: utxo.txid,
        index: utxo.vout,
        witnessUtxo: { script: this.key.outputScript, value: utxo.valueSat },
      });
    }
    for (const payout of payouts) psbt.addOutput({ address: payout.address, value: payout.amountSat });
    const change = gathered - target - fee;
    if (change >= DUST_SAT) psbt.addOutput({ address: this.address, value: change });
    psbt.signAllInputs(this.key.signer);
    psbt.finalizeAllInputs();
    return this.chain.sendRawTransaction(psbt.extractTransaction().toHex());
  }

  /**
   * The wallet's outputs, found again only when the chain's tip or its mempool changed: finding them
   * has btcd decode every transaction the address ever had (each coinbase of the lab's blocks), and
   * every `reglab status`, every poll of GET /labs/{name}, asks for the balance. The same tip and the
   * same mempool hold the same outputs.
   */
  private async listUnspent(): Promise<{ spendable: Utxo[]; immature: Utxo[] }> {
    const [tip, mempool] = await Promise.all([this.chain.getBestBlockHash(), this.chain.getRawMempool()]);
    const state = `${tip} ${[...mempool].sort().join(',')}`;
    if (this.found?.state !== state)
      this.found = {
        state,
        unspent:
          this.chain.kind === 'btcd' ? await this.listUnspentFromAddressIndex() : await this.listUnspentFromUtxoScan(),
      };
    const { spendable, immature } = this.found.unspent;
    return { spendable: [...spendable], immature: [...immature] };
  }

  /** btcd: every transaction touching the address (mempool included), minus the outputs they spend. */
  private async listUnspentFromAddressIndex() {
    const pageSize = 500;
    const transactions: SearchedTransaction[] = [];
    for (let skip = 0; ; skip += pageSize) {
      const page = await this.chain
        .call<SearchedTransaction[]>('searchrawtransactions', [this.address, 1, skip, pageSize, 0, false])
        .catch((error: Error) => {
          if (/No information available about address/i.test(error.message)) return [];
          throw error;
        });
      transactions.push(...page);
      if (page.length < pageSize) break;
    }
    const spent = new Set(
      transactions.flatMap((tx) => tx.vin.filter((input) => input.txid).map((input) => `${input.txid}:${input.vout}`)),
    );
    const spendable: Utxo[] = [];
    const immature: Utxo[] = [];
    for (const tx of transactions) {
      const isCoinbase = tx.vin.some((input) => input.coinbase !== undefined);
      for (const output of tx.vout) {
        const paysUs =
          output.scriptPubKey.address === this.address || output.scriptPubKey.addresses?.includes(this.address);
        if (!paysUs || spent.has(`${tx.txid}:${output.n}`)) continue;
        const utxo = { txid: tx.txid, vout: output.n, valueSat: btcToSat(output.value) };
        const mature = !isCoinbase || (tx.confirmations ?? 0) >= COINBASE_MATURITY;
        (mature ? spendable : immature).push(utxo);
      }
    }
    return { spendable, immature };
  }

  /** Bitcoin Core: scantxoutset sees confirmed outputs only, which is enough between mined blocks. */
  private async listUnspentFromUtxoScan() {
    const tip = await this.chain.getBlockCount();
    const scan = await this.chain.call<{
      unspents: { txid: string; vout: number; amount: number; height: number; coinbase?: boolean }[];
    }>('scantxoutset', ['start', [`addr(${this.address})`]]);
    const spendable: Utxo[] = [];
    const immature: Utxo[] = [];
    for (const unspent of scan.unspents) {
      const utxo = { txid: unspent.txid, vout: unspent.vout, valueSat: btcToSat(unspent.amount) };
      const mature = !unspent.coinbase || tip - unspent.height + 1 >= COINBASE_MATURITY;
      (mature ? spendable : immature).push(utxo);
    }
    return { spendable, immature };
  }
}

interface SearchedTransaction {
  txid: string;
  confirmations?: number;
  vin: { txid?: string; vout?: number; coinbase?: string }[];
  vout: { n: number; value: number; scriptPubKey: { address?: string; addresses?: string[] } }[];
}

/** RPC amounts are BTC as JSON numbers; they are exact to the satoshi once rounded. */
export function btcToSat(btc: number): bigint {
  return BigInt(Math.round(btc * 100_000_000));
}

/** P2WPKH inputs and outputs: 10.5 vB overhead, 68 vB per input, 31 vB per output. */
function estimateVsize(inputs: number, outputs: number): number {
  return 11 + 68 * inputs + 31 * outputs;
}
