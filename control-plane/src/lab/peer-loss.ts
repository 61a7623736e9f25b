// A channel open whose connection to its partner was lost before the open began. lnd drops a peer
// that does not finish its start in time (its init message within 15 s): on a machine bringing many
// labs up at once, a node's first connection to its partner can go that way, and the open that
// waited on it fails with nothing funded (lnd cancels the reservation and frees its outputs). The
// open is then tried again over a new connection, a few times, a little later each time.
import { sleep } from '../../../lib/wait.js';
import { isPeerLost } from '../../../lib/lightning/errors.js';

export interface PeerLossRetry {
  /** How many opens in all, the first one included. */
  attempts: number;
  /** The pause before the second open; each next one waits as long again more. */
  pauseMs: number;
}

const DEFAULT_RETRY: PeerLossRetry = { attempts: 5, pauseMs: 500 };

/** Runs `connectAndOpen` until it opens, again after each loss of the peer; any other failure, or the last loss, is thrown. */
export async function openRetryingPeerLoss<T>(
  connectAndOpen: () => Promise<T>,
  retry: PeerLossRetry = DEFAULT_RETRY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectAndOpen();
    } catch (error) {
      if (!isPeerLost(error) || attempt >= retry.attempts) throw error;
      await sleep(retry.pauseMs * attempt);
    }
  }
}
