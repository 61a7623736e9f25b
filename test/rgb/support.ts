// A lab for real RGB: btcd, the lab's Electrum indexer and chain adapter (brought up by the lab's own
// code), the lab's consignment proxy in this process, and rgb-lib wallets the test makes itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { fund, mineBlocks } from '../../control-plane/src/lab/operations.js';
import { electrumIndexerUrl, esploraIndexerUrl, proxyEndpoint } from '../../lib/rgb/endpoints.js';
import { generateRgbKeys } from '../../lib/rgb/keys.js';
import type { TransferStatus } from '../../lib/rgb/types.js';
import { RgbWallet } from '../../lib/rgb/wallet.js';
import { waitFor } from '../../lib/wait.js';
import { buildApp } from '../../services/rgb-proxy/src/app.js';
import { ProxyStore } from '../../services/rgb-proxy/src/store.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

export interface RgbLab {
  regtest: Regtest;
  /** The proxy's store, to look at what went through it. */
  proxyStore: ProxyStore;
  /** rpc://127.0.0.1:PORT/json-rpc */
  proxyEndpoint: string;
  electrumUrl: string;
  esploraUrl: string;
  /** A new wallet (new keys, its own folder), online against `indexerUrl`. */
  openWallet(indexerUrl: string): Promise<RgbWallet>;
  /** Funds a wallet from the lab wallet and turns part of it into `utxos` confirmed colorable UTXOs. */
  prepareWallet(wallet: RgbWallet, utxos?: number): Promise<void>;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

const FUNDING_SAT = 1_000_000n;

/** The statuses of one batch's transfers on a wallet. */
export async function batchStatuses(
  wallet: RgbWallet,
  assetId: string,
  batchTransferIdx: number,
): Promise<TransferStatus[]> {
  // a receive on an open invoice has no asset until its consignment arrives
  const transfers = [...(await wallet.listTransfers(assetId).catch(() => [])), ...(await wallet.listTransfers())];
  return transfers
    .filter((transfer) => transfer.batchTransferIdx === batchTransferIdx)
    .map((transfer) => transfer.status);
}

/**
 * Refreshes the wallets, one after the other, until each transfer of each given batch is `status`
 * on its wallet. On time-out the error says where each one was.
 */
export async function refreshUntil(
  status: TransferStatus,
  parties: { wallet: RgbWallet; batchTransferIdx: number; assetId: string }[],
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    async () => {
      const seen: string[] = [];
      for (const [index, { wallet, batchTransferIdx, assetId }] of parties.entries()) {
        await wallet.refresh();
        const statuses = await batchStatuses(wallet, assetId, batchTransferIdx);
        if (statuses.length === 0 || statuses.some((current) => current !== status))
          seen.push(`party ${index} batch ${batchTransferIdx}: ${statuses.join(', ') || 'no transfer'}`);
      }
      if (seen.length > 0) throw new Error(`not yet ${status}: ${seen.join('; ')}`);
      return true;
    },
    { timeoutMs, intervalMs: 100, what: `the transfers to be ${status} on every side` },
  );
}

export async function startRgbLab(): Promise<RgbLab> {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-rgb-'));
  const wallets: RgbWallet[] = [];
  let regtest: Regtest | undefined;
  let proxy: FastifyInstance | undefined;
  const stop = async () => {
    await Promise.allSettled(wallets.map((wallet) => wallet.close()));
    await proxy?.close();
    await regtest?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    regtest = await startRegtest({ indexer: true, services: { 'chain-adapter': {} } });
    const proxyStore = await ProxyStore.open(join(dir, 'proxy'));
    proxy = await buildApp({ store: proxyStore, maxUploadBytes: 16 * 1024 * 1024 });
    await proxy.listen({ host: '127.0.0.1', port: 0 });
    const lab = regtest;
    const mine = async (blocks = 1) => {
      await mineBlocks(lab.session, blocks);
    };
    return {
      regtest: lab,
      proxyStore,
      proxyEndpoint: proxyEndpoint(`127.0.0.1:${(proxy.server.address() as { port: number }).port}`),
      electrumUrl: electrumIndexerUrl(lab.address('indexer', 'electrum')),
      esploraUrl: esploraIndexerUrl(lab.address('chain-adapter', 'http')),
      async openWallet(indexerUrl) {
        const wallet = await RgbWallet.open({
          dataDir: mkdtempSync(join(dir, 'wallet-')),
          keys: await generateRgbKeys(),
        });
        wallets.push(wallet);
        await wallet.goOnline(indexerUrl);
        return wallet;
      },
      async prepareWallet(wallet, utxos = 5) {
        await fund(lab.session, { address: await wallet.address(), amountSat: FUNDING_SAT });
        // the indexer follows the chain a moment after the block
        await waitFor(async () => (await wallet.btcBalance()).vanilla.settled === Number(FUNDING_SAT), {
          timeoutMs: 30_000,
          intervalMs: 100,
          what: 'the funding to be seen by the wallet',
        });
        const created = await wallet.createUtxos({ num: utxos });
        if (created !== utxos) throw new Error(`rgb-lib created ${created} colorable UTXOs, not ${utxos}`);
        await mine();
        await waitFor(async () => (await wallet.btcBalance()).colored.settled > 0, {
          timeoutMs: 30_000,
          intervalMs: 100,
          what: 'the colorable UTXOs to confirm',
        });
      },
      mine,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
