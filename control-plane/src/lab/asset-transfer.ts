// Taking an RGB transfer to settled, as rgb-lib moves it: only when each side refreshes. The
// receivers refresh first (they fetch, validate and ACK the consignment), then the sender (it reads
// the ACKs and broadcasts); once the transaction is out one block is mined and, when the lab's
// indexer serves it (asset nodes read the chain there), every side refreshes until all settle.
import { DomainError, upstreamFailed } from '../../../lib/errors.js';
import { retryWhile, waitFor } from '../../../lib/wait.js';
import type { AssetHolder, AssetTransferView } from '../nodes/node.js';
import { waitIndexed } from './indexed-tip.js';
import type { LabSession } from './session.js';

/** Told the new height after each block the lab mines for an asset transfer (the API sends an event). */
export type OnMined = (height: number) => void;

export interface TransferToSettle {
  assetId: string;
  txid: string;
  sender: string;
  receivers: string[];
}

const SETTLE_TIMEOUT_MS = 120_000;
const failedTransfer = (error: unknown) => error instanceof DomainError && error.code === 'ASSET_TRANSFER_FAILED';
const noFreeUtxos = (error: unknown) => error instanceof DomainError && error.code === 'NO_FREE_UTXOS';

/** Mines one block and waits until the lab's indexer serves it. */
export async function mineIndexed(session: LabSession, onMined?: OnMined): Promise<number> {
  const { height } = await session.mine(1);
  onMined?.(height);
  await waitIndexed(session, height);
  return height;
}

/**
 * Refreshes every side of the transfer until all of them are Settled; mines its block once the sender has broadcast.
 */
export async function settleAssetTransfer(
  session: LabSession,
  transfer: TransferToSettle,
  onMined?: OnMined,
): Promise<void> {
  const refreshed = async (name: string): Promise<AssetTransferView[]> => {
    const holder = session.assets(name);
    await holder.refreshTransfers();
    const mine = (await holder.assetTransfers(transfer.assetId)).filter((view) => view.txid === transfer.txid);
    if (mine.some((view) => view.status === 'Failed')) {
      throw upstreamFailed(
        'ASSET_TRANSFER_FAILED',
        `the transfer ${transfer.txid} failed on ${name} (a receiver refused the consignment, or it expired): nothing moved`,
      );
    }
    return mine;
  };
  let mined = false;
  await waitFor(
    async () => {
      const received = await Promise.all(transfer.receivers.map(refreshed));
      const sent = await refreshed(transfer.sender);
      if (!mined && sent.length > 0 && sent.every((view) => view.status === 'WaitingConfirmations')) {
        await mineIndexed(session, onMined);
        mined = true;
        return false;
      }
      return (
        mined &&
        received.every((views) => views.length > 0) &&
        [...received.flat(), ...sent].every((view) => view.status === 'Settled')
      );
    },
    {
      timeoutMs: SETTLE_TIMEOUT_MS,
      intervalMs: 200,
      what: `asset transfer ${transfer.txid} to settle on ${[transfer.sender, ...transfer.receivers].join(', ')}`,
      stopOn: failedTransfer,
    },
  );
}

/**
 * Runs `work` on asset node `name`. A node with no free colored UTXO (each receipt and issuance
 * takes one) is given new ones, confirmed by a block, and `work` runs again.
 */
export async function withFreeUtxos<T>(
  session: LabSession,
  name: string,
  work: (holder: AssetHolder) => Promise<T>,
  onMined?: OnMined,
): Promise<T> {
  const holder = session.assets(name);
  try {
    return await work(holder);
  } catch (error) {
    if (!noFreeUtxos(error)) throw error;
  }
  await holder.createColoredUtxos();
  await mineIndexed(session, onMined);
  return retryWhile(() => work(holder), noFreeUtxos, { timeoutMs: 30_000, intervalMs: 250 });
}
