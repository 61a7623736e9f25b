// When the lab mines a block to keep its tip young enough for lnd (lab/chain-tip.ts).
import { describe, expect, it } from 'vitest';
import { freshenChainTip } from '../../control-plane/src/lab/chain-tip.js';

const NOW_MS = Date.UTC(2026, 10, 26, 12, 0, 0);
const NOW = NOW_MS / 1000;

/** A lab whose chain's tip is at `height`, made `tipAgeSeconds` ago, with this max_tip_age_seconds; what it mined. */
function labWith(tip: { height: number; tipAgeSeconds: number }, maxTipAgeSeconds?: number) {
  const mined: number[] = [];
  let height = tip.height;
  const access = {
    lab: {
      spec: {
        mining: {
          initial_blocks: 432,
          auto_mine_seconds: 0,
          ...(maxTipAgeSeconds === undefined ? {} : { max_tip_age_seconds: maxTipAgeSeconds }),
        },
      },
    },
    chain: {
      getBestBlockHash: async () => `hash-${height}`,
      getBlockSummary: async (hash: string) => ({ hash, height, time: NOW - tip.tipAgeSeconds, txids: [] }),
    },
    mine: async (blocks: number) => {
      mined.push(blocks);
      height += blocks;
      return { height };
    },
  } as unknown as Parameters<typeof freshenChainTip>[0];
  return { access, mined };
}

describe('freshenChainTip', () => {
  it('mines one block when the tip is older than max_tip_age_seconds, and says how old it was', async () => {
    const { access, mined } = labWith({ height: 440, tipAgeSeconds: 3_601 }, 3_600);
    expect(await freshenChainTip(access, NOW_MS)).toEqual({ height: 441, tipAgeSeconds: 3_601 });
    expect(mined).toEqual([1]);
  });

  it('mines nothing while the tip is as old as allowed or younger', async () => {
    for (const tipAgeSeconds of [0, 60, 3_600]) {
      const { access, mined } = labWith({ height: 440, tipAgeSeconds }, 3_600);
      expect(await freshenChainTip(access, NOW_MS)).toBeUndefined();
      expect(mined).toEqual([]);
    }
  });

  it('mines nothing when max_tip_age_seconds is 0, however old the tip', async () => {
    const { access, mined } = labWith({ height: 440, tipAgeSeconds: 30 * 86_400 }, 0);
    expect(await freshenChainTip(access, NOW_MS)).toBeUndefined();
    expect(mined).toEqual([]);
  });

  it('leaves a chain with only its genesis block to bring-up, which mines its first blocks', async () => {
    const { access, mined } = labWith({ height: 0, tipAgeSeconds: 15 * 365 * 86_400 }, 3_600);
    expect(await freshenChainTip(access, NOW_MS)).toBeUndefined();
    expect(mined).toEqual([]);
  });

  it('holds a lab saved before the setting existed to the default hour', async () => {
    const young = labWith({ height: 440, tipAgeSeconds: 3_000 });
    expect(await freshenChainTip(young.access, NOW_MS)).toBeUndefined();
    const old = labWith({ height: 440, tipAgeSeconds: 3_700 });
    expect(await freshenChainTip(old.access, NOW_MS)).toEqual({ height: 441, tipAgeSeconds: 3_700 });
  });
});
