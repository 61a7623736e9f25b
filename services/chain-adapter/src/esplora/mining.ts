// mempool.space's mining views (difficulty adjustment, hashrate) computed from the chain's headers.
// Regtest never retargets (its proof-of-work limit stays), so the difficulty does not change; the
// epoch arithmetic is Bitcoin's all the same.
import type { Indexer } from '../indexer.js';
import { difficultyOf } from './convert.js';

/** Blocks per difficulty epoch, and the target spacing (ms). */
const EPOCH = 2016;
const TARGET_SPACING_MS = 600_000;
const DAY_SECONDS = 86_400;
/** Most headers one indexer call returns. */
const HEADERS_PER_CALL = 2016;

/** mempool.space's hashrate intervals, in seconds (`all` reaches back to the genesis block). */
export const HASHRATE_INTERVALS: Record<string, number> = {
  '1m': 30 * DAY_SECONDS,
  '3m': 91 * DAY_SECONDS,
  '6m': 182 * DAY_SECONDS,
  '1y': 365 * DAY_SECONDS,
  '2y': 730 * DAY_SECONDS,
  '3y': 1095 * DAY_SECONDS,
  all: Number.POSITIVE_INFINITY,
};

interface Header {
  height: number;
  time: number;
  bits: number;
}

async function headers(indexer: Indexer, start: number, count: number): Promise<Header[]> {
  const read: Header[] = [];
  for (let from = start; from < start + count; from += HEADERS_PER_CALL) {
    const hex = Buffer.from(
      await indexer.blockHeadersHex(from, Math.min(HEADERS_PER_CALL, start + count - from)),
      'hex',
    );
    for (let i = 0; i * 80 < hex.length; i++)
      read.push({ height: from + i, time: hex.readUInt32LE(i * 80 + 68), bits: hex.readUInt32LE(i * 80 + 72) });
  }
  return read;
}

/** mempool.space's GET /v1/difficulty-adjustment (times in ms, as it gives them). */
export async function difficultyAdjustment(indexer: Indexer, nowMs: number) {
  const tip = await indexer.tipHeight();
  const epochStart = tip - (tip % EPOCH);
  const [start, last] = await Promise.all([headers(indexer, epochStart, 1), headers(indexer, tip, 1)]);
  const blocksInEpoch = tip - epochStart;
  const elapsedMs = Math.max(0, nowMs - start[0]!.time * 1000);
  const timeAvg =
    blocksInEpoch > 0
      ? Math.round(((last[0]!.time - start[0]!.time) * 1000) / blocksInEpoch) || TARGET_SPACING_MS
      : TARGET_SPACING_MS;
  const remainingBlocks = EPOCH - blocksInEpoch;
  return {
    progressPercent: (blocksInEpoch / EPOCH) * 100,
    difficultyChange: 0,
    estimatedRetargetDate: nowMs + timeAvg * remainingBlocks,
    remainingBlocks,
    remainingTime: timeAvg * remainingBlocks,
    previousRetarget: 0,
    nextRetargetHeight: epochStart + EPOCH,
    timeAvg,
    timeOffset: 0,
    expectedBlocks: elapsedMs / TARGET_SPACING_MS,
  };
}

/**
 * mempool.space's GET /v1/mining/hashrate/:interval: a daily hashrate estimate (difficulty x 2^32 per second of the
 * day's blocks) and the difficulty changes, for the blocks of the interval.
 */
export async function hashrate(indexer: Indexer, interval: number, nowSeconds: number) {
  const tip = await indexer.tipHeight();
  const since = nowSeconds - interval;
  // Walk back from the tip until a block is older than the interval (timestamps only roughly rise).
  const inRange: Header[] = [];
  for (let end = tip; end >= 0; end -= HEADERS_PER_CALL) {
    const chunk = await headers(indexer, Math.max(0, end - HEADERS_PER_CALL + 1), Math.min(HEADERS_PER_CALL, end + 1));
    inRange.unshift(...chunk.filter((header) => header.time >= since));
    if (chunk[0]!.time < since) break;
  }
  const days = new Map<number, Header[]>();
  for (const header of inRange) {
    const day = header.time - (header.time % DAY_SECONDS);
    days.set(day, [...(days.get(day) ?? []), header]);
  }
  const hashrates = [...days].map(([timestamp, blocks]) => ({
    timestamp,
    avgHashrate: (difficultyOf(blocks.at(-1)!.bits) * 2 ** 32 * blocks.length) / DAY_SECONDS,
  }));
  const difficulty = inRange
    .filter((header, i) => i === 0 || header.bits !== inRange[i - 1]!.bits)
    .map((header, i, changes) => ({
      time: header.time,
      height: header.height,
      difficulty: difficultyOf(header.bits),
      adjustment: i === 0 ? 1 : difficultyOf(header.bits) / difficultyOf(changes[i - 1]!.bits),
    }));
  const [tipHeader] = await headers(indexer, tip, 1);
  return {
    hashrates,
    difficulty,
    currentHashrate: hashrates.at(-1)?.avgHashrate ?? 0,
    currentDifficulty: difficultyOf(tipHeader!.bits),
  };
}
