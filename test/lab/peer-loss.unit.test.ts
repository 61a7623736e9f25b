// A channel open whose connection to its partner was lost before the open began (lnd, starting a
// peer too slowly under the load of many labs, drops it): tried again over a new connection; any
// other failure is the caller's at once.
import { describe, expect, it } from 'vitest';
import { LightningError, nodeFailed, peerLost } from '../../lib/lightning/errors.js';
import { openLostPeer } from '../../lib/lightning/lnd/errors.js';
import { openRetryingPeerLoss } from '../../control-plane/src/lab/peer-loss.js';

const quick = { attempts: 3, pauseMs: 1 };

/** An open that fails with each of `failures` in turn, then opens; counts its calls. */
function opens(...failures: Error[]) {
  const calls = { count: 0 };
  return {
    calls,
    open: async () => {
      const failure = failures[calls.count++];
      if (failure) throw failure;
      return { fundingTxid: 'ab'.repeat(32), fundingVout: 0 };
    },
  };
}

describe('a channel open that lost its peer', () => {
  it('connects and opens again after the peer was lost, and answers the open that worked', async () => {
    const { calls, open } = opens(peerLost('alice lost bob'), peerLost('alice lost bob again'));
    await expect(openRetryingPeerLoss(open, quick)).resolves.toEqual({ fundingTxid: 'ab'.repeat(32), fundingVout: 0 });
    expect(calls.count).toBe(3);
  });

  it('gives up after its last attempt with the loss it saw', async () => {
    const { calls, open } = opens(peerLost('1'), peerLost('2'), peerLost('3'), peerLost('4'));
    await expect(openRetryingPeerLoss(open, quick)).rejects.toMatchObject({ code: 'PEER_DISCONNECTED', message: '3' });
    expect(calls.count).toBe(3);
  });

  it('does not try again an open that failed for another reason', async () => {
    const { calls, open } = opens(nodeFailed('alice could not take the channel: InsufficientFundsToCreateChannel'));
    await expect(openRetryingPeerLoss(open, quick)).rejects.toBeInstanceOf(LightningError);
    expect(calls.count).toBe(1);
  });

  it("reads lnd's failures of a partner gone before the open began as a lost peer, and no other", () => {
    expect(openLostPeer([503, 'RemotePeerDisconnected'])).toBe(true);
    expect(openLostPeer([503, 'PeerIsNotOnline'])).toBe(true);
    expect(openLostPeer([503, 'RemotePeerExited'])).toBe(true);
    expect(openLostPeer([503, 'PeerPendingChannelsExceedMaximumAllowable'])).toBe(false);
    expect(openLostPeer([503, 'FailedToOpenChannel', { err: 'peer disconnected' }])).toBe(false);
    expect(openLostPeer([400, 'InsufficientFundsToCreateChannel'])).toBe(false);
    expect(openLostPeer(new Error('RemotePeerDisconnected'))).toBe(false);
  });
});
