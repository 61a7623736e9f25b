// lnd counts itself unsynced once the chain's tip is two hours old, so the lab keeps its tip younger
// than mining.max_tip_age_seconds: the supervisor mines a block on an idle chain, and a chain node
// that starts on old blocks (after a stop, or from a snapshot) gets one before it is ready. The lab
// here allows three seconds, so the two hours of a real idle lab pass in a test; a second lab's
// chain node is given blocks made a day before, as a snapshot kept in a CI cache holds.
// Its own labs: they stop the chain node, let its tip grow old (a three-second limit the default
// lab does not have) and give it a day-old chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegtestBlock } from '../../lib/chain/block-builder.js';
import { waitFor } from '../../lib/wait.js';
import { bringUpLab, collectEvents, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';

const LAB = 'tip';
const DAY_OLD_LAB = 'dayold';
const REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const SOMEONES_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const MAX_TIP_AGE_SECONDS = 3;
const YAML = `name: ${LAB}
runtime: process
chain:
  kind: btcd
indexer:
  enabled: false
nodes:
  - name: alice
    kind: lnd
mining:
  max_tip_age_seconds: ${MAX_TIP_AGE_SECONDS}
`;

describe('the lab keeps its chain tip young enough for lnd', () => {
  let cp: TestControlPlane;
  const session = () => cp.plane.manager.session(LAB);
  const tip = async () => {
    const chain = session().chain;
    return chain.getBlockSummary(await chain.getBestBlockHash());
  };
  const ageOf = (block: { time: number }) => Date.now() / 1000 - block.time;

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
    await bringUpLab(
      cp,
      `name: ${DAY_OLD_LAB}\nruntime: process\nchain:\n  kind: btcd\nindexer:\n  enabled: false\n`,
      DAY_OLD_LAB,
    );
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('mines a block on an idle chain once its tip is older than allowed, announces it, journals it, and lnd follows it', async () => {
    const events = collectEvents(`${cp.plane.url}/labs/${LAB}/events`);
    const before = await tip();
    try {
      // bring-up mined its blocks faster than one a second, and each must be later than the median of
      // the eleven before it: the tip starts out up to a couple of minutes ahead of the clock
      const announced = await waitFor(
        async () => events.events.find((event) => event.type === 'blocks' && event.height > before.height),
        {
          timeoutMs: (-ageOf(before) + MAX_TIP_AGE_SECONDS + 30) * 1_000,
          intervalMs: 100,
          what: 'a block mined on the idle chain',
        },
      );
      expect(announced).toMatchObject({ type: 'blocks', lab: LAB, mined: 1 });
      const mined = await session().chain.getBlockSummary(await session().chain.getBlockHash(before.height + 1));
      // mined because the tip it followed had grown too old, not before
      expect(mined.time - before.time).toBeGreaterThan(MAX_TIP_AGE_SECONDS);
      expect((await session().chainJournal.tip())?.height).toBeGreaterThanOrEqual(before.height + 1);
      await session()
        .node('alice')
        .waitSynced(before.height + 1);
    } finally {
      events.stop();
    }
  }, 240_000);

  it('a chain node started again on blocks older than allowed gets a block before it is ready, and lnd stays synced', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/services/chain/stop`)).body).toEqual({
      service: 'chain',
      status: 'stopped',
    });
    const stoppedAt = Date.now() / 1000;
    // what the chain starts again on: its blocks as the lab journaled them, none made after the stop
    const before = (await session().chainJournal.tip())!;
    expect(before.height).toBeGreaterThan(0);
    // stopped, the chain gets no block from the supervisor: the tip it starts again on only ages
    await waitFor(async () => Date.now() / 1000 - stoppedAt > MAX_TIP_AGE_SECONDS + 1, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: "the stopped chain's tip to grow older than allowed",
    });

    const startedAt = Math.floor(Date.now() / 1000);
    expect((await cp.call('POST', `/labs/${LAB}/services/chain/start`)).body).toEqual({
      service: 'chain',
      status: 'ready',
    });
    // the block on the old tip, made as the chain started (the supervisor may have mined another on it since)
    const chain = session().chain;
    const after = await chain.getBlockSummary(await chain.getBlockHash(before.height + 1));
    expect(after.previousBlockHash).toBe(before.hash);
    expect(after.time).toBeGreaterThanOrEqual(startedAt);
    await session().node('alice').waitSynced(after.height);
    await waitFor(async () => (await cp.call('GET', `/labs/${LAB}`)).body.status === 'ready', {
      timeoutMs: 60_000,
      what: 'the lab ready',
    });
  });

  it('a chain node started on blocks a day old gets a new block before it is ready, after which mining to any address works', async () => {
    expect((await cp.call('POST', `/labs/${DAY_OLD_LAB}/services/chain/stop`)).body).toEqual({
      service: 'chain',
      status: 'stopped',
    });
    // the lab's chain, as a snapshot taken a day before holds it: three blocks a minute apart, 30 hours ago
    const dayAgo = Math.floor(Date.now() / 1000) - 30 * 3_600;
    const blocks: string[] = [];
    let previous = REGTEST_GENESIS;
    for (let height = 1; height <= 3; height++) {
      const block = buildRegtestBlock(
        {
          version: 0x20000000,
          previousblockhash: previous,
          transactions: [],
          coinbasevalue: 50 * 100_000_000,
          bits: '207fffff',
          curtime: dayAgo + height * 60,
          height,
        },
        SOMEONES_ADDRESS,
      );
      blocks.push(block.toHex());
      previous = block.getId();
    }
    const journal = cp.plane.manager.session(DAY_OLD_LAB).chainJournal;
    await journal.replace(blocks);

    expect((await cp.call('POST', `/labs/${DAY_OLD_LAB}/services/chain/start`)).body).toEqual({
      service: 'chain',
      status: 'ready',
    });
    const chain = cp.plane.manager.session(DAY_OLD_LAB).chain;
    const tip = await chain.getBlockSummary(await chain.getBestBlockHash());
    expect(tip).toMatchObject({ height: 4, previousBlockHash: previous });
    expect(ageOf(tip)).toBeLessThan(60);
    // on a tip a day old btcd refuses the block templates ("Bitcoin is downloading blocks...") that mining needs
    const mined = await cp.call('POST', `/labs/${DAY_OLD_LAB}/mine?wait=true`, {
      blocks: 1,
      address: SOMEONES_ADDRESS,
    });
    expect(mined.body.state, JSON.stringify(mined.body)).toBe('completed');
    expect(mined.body.result.height).toBe(5);
  });
});
