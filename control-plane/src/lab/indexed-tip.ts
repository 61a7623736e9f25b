import { waitFor } from '../../../lib/wait.js';
import { electrumTipHeight } from '../nodes/indexer/electrum.js';
import type { LabSession } from './session.js';

/**
 * Waits until the lab's indexer serves block `height` (by default the chain's newest): what
 * Electrum clients, the chain adapter and asset nodes see of the chain. Nothing to wait for in a lab
 * without an indexer.
 */
export async function waitIndexed(session: LabSession, height?: number): Promise<void> {
  if (session.lab.services.indexer === undefined) return;
  const target = height ?? (await session.chain.getBlockCount());
  const indexer = session.host.reach('indexer', 'electrum');
  await waitFor(async () => (await electrumTipHeight(indexer)) >= target, {
    timeoutMs: 60_000,
    intervalMs: 50,
    what: `the indexer to serve block ${target}`,
  });
}
