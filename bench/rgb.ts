// npm run bench:rgb
// An RGB asset transfer from `send` to settled on both sides, between two rgb-lib wallets, through
// the lab's consignment proxy, over each indexer the lab offers (its Electrum indexer, and its chain
// adapter as Esplora); one block mined the way `reglab mine` does. BENCH_ROUNDS (default 5).
//
// Phases of one transfer:
//   send         the payer's send: builds the transfer, posts the consignment to the proxy
//   ack          payee refreshes until it has fetched, validated and ACKed the consignment
//   broadcast    payer refreshes until it has read the ACK and broadcast the tx
//   mine         one block, through the lab (btcd's generate)
//   settle       payee, then payer, refresh until the transfer is Settled (this includes the
//                indexer catching up with the block)
// For each phase, "lab" is the part rgb-lib spent waiting on the lab's indexer (or chain adapter)
// and proxy, measured by a proxy in front of each; the rest is rgb-lib's own work. Apart:
// "indexed", how long after the block the indexer served it (asked every 5 ms).
import { mineBlocks } from '../control-plane/src/lab/operations.js';
import { electrumIndexerUrl, esploraIndexerUrl, proxyEndpoint } from '../lib/rgb/endpoints.js';
import type { TransferStatus } from '../lib/rgb/types.js';
import type { RgbWallet } from '../lib/rgb/wallet.js';
import { connectLineClient } from '../test/indexer/rpc-line-client.js';
import { batchStatuses, startRgbLab } from '../test/rgb/support.js';
import { benchRun, round } from './results.js';
import { startWaitingProxy, type WaitingProxy } from './waiting-proxy.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const PHASES = ['send', 'ack', 'broadcast', 'mine', 'settle'] as const;

/** Refreshes `wallet` until its transfers of `batch` are all in one of `wanted`; returns how many refreshes it took. */
async function refreshUntil(
  wallet: RgbWallet,
  assetId: string,
  batch: number,
  wanted: TransferStatus[],
): Promise<number> {
  for (let refreshes = 1; ; refreshes++) {
    await wallet.refresh();
    const statuses = await batchStatuses(wallet, assetId, batch);
    if (statuses.length > 0 && statuses.every((current) => wanted.includes(current))) return refreshes;
    if (refreshes === 200)
      throw new Error(
        `transfer batch ${batch} is not ${wanted.join(' or ')} after 200 refreshes: ${statuses.join(', ')}`,
      );
  }
}

const hostPort = (address: string) => ({ host: address.split(':')[0]!, port: Number(address.split(':')[1]) });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cell = (value: number, lab?: number) =>
  (lab === undefined ? `${value.toFixed(0)}` : `${value.toFixed(0)} (${lab.toFixed(0)})`).padStart(12);
const header = `${'round'.padEnd(7)}${[...PHASES, 'total'].map((phase) => phase.padStart(12)).join('')}${'indexed'.padStart(9)}  refreshes`;

const bench = benchRun('rgb', { rounds });
/** Medians by indexer, for the record. */
const byIndexer: Record<string, unknown> = {};
console.log('bringing up btcd, the indexer, the chain adapter and the proxy...');
const lab = await startRgbLab();
const meters: WaitingProxy[] = [];
try {
  const indexer = await connectLineClient(hostPort(lab.regtest.address('indexer', 'electrum')).port);
  const indexedTip = async () => ((await indexer.request('blockchain.headers.subscribe')) as { height: number }).height;
  const consignments = await startWaitingProxy(hostPort(new URL(lab.proxyEndpoint.replace(/^rpc:/, 'http:')).host));
  meters.push(consignments);
  const endpoint = proxyEndpoint(`127.0.0.1:${consignments.port}`);
  const indexers = [
    ['Electrum indexer', 'indexer', 'electrum', electrumIndexerUrl],
    ['chain adapter as Esplora', 'chain-adapter', 'http', esploraIndexerUrl],
  ] as const;
  for (const [label, service, port, toUrl] of indexers) {
    const meter = await startWaitingProxy(hostPort(lab.regtest.address(service, port)));
    meters.push(meter);
    const labWaitMs = () => meter.takeWaitedMs() + consignments.takeWaitedMs();
    const payer = await lab.openWallet(toUrl(`127.0.0.1:${meter.port}`));
    const payee = await lab.openWallet(toUrl(`127.0.0.1:${meter.port}`));
    await lab.prepareWallet(payer, rounds + 2);
    await lab.prepareWallet(payee, rounds + 2);
    const asset = await payer.issueNia({ ticker: 'BENCH', name: 'Bench coin', precision: 0, amounts: [1_000_000] });
    console.log(`\n${label}, ${rounds} transfers of 10 units; ms, (of which waiting on the lab):`);
    console.log(header);
    const figures = {
      phase: PHASES.map(() => [] as number[]),
      lab: PHASES.map(() => [] as number[]),
      total: [] as number[],
      totalLab: [] as number[],
      indexed: [] as number[],
    };
    for (let round = 1; round <= rounds; round++) {
      const invoice = await payee.blindReceive({ assignment: { Fungible: 10 }, transportEndpoints: [endpoint] });
      labWaitMs();
      const marks = [performance.now()];
      const waits: number[] = [];
      const mark = () => {
        marks.push(performance.now());
        waits.push(labWaitMs());
      };
      const sent = await payer.send({
        recipientMap: {
          [asset.assetId]: [
            {
              recipientId: invoice.recipientId,
              witnessData: null,
              assignment: { Fungible: 10 },
              transportEndpoints: [endpoint],
            },
          ],
        },
      });
      mark();
      // the payee has ACKed once it waits for the payer's broadcast (or already sees the tx)
      const ackRefreshes = await refreshUntil(payee, asset.assetId, invoice.batchTransferIdx, [
        'WaitingBroadcast',
        'WaitingConfirmations',
      ]);
      mark();
      const broadcastRefreshes = await refreshUntil(payer, asset.assetId, sent.batchTransferIdx, [
        'WaitingConfirmations',
      ]);
      mark();
      const { height } = await mineBlocks(lab.regtest.session, 1);
      mark();
      const minedAt = performance.now();
      const indexed = (async () => {
        while ((await indexedTip()) < height) await new Promise((resolve) => setTimeout(resolve, 5));
        return performance.now() - minedAt;
      })();
      const settleRefreshes =
        (await refreshUntil(payee, asset.assetId, invoice.batchTransferIdx, ['Settled'])) +
        (await refreshUntil(payer, asset.assetId, sent.batchTransferIdx, ['Settled']));
      mark();
      const durations = marks.slice(1).map((at, index) => at - marks[index]!);
      const total = marks.at(-1)! - marks[0]!;
      const totalLab = waits.reduce((sum, wait) => sum + wait, 0);
      durations.forEach((duration, index) => {
        figures.phase[index]!.push(duration);
        figures.lab[index]!.push(waits[index]!);
      });
      figures.total.push(total);
      figures.totalLab.push(totalLab);
      figures.indexed.push(await indexed);
      const row =
        durations.map((duration, index) => cell(duration, waits[index])).join('') +
        cell(total, totalLab) +
        cell(figures.indexed.at(-1)!).slice(3);
      console.log(`${String(round).padEnd(7)}${row}  ${ackRefreshes}/${broadcastRefreshes}/${settleRefreshes}`);
    }
    const medians = PHASES.map((_, index) => cell(median(figures.phase[index]!), median(figures.lab[index]!))).join('');
    console.log(
      `${'median'.padEnd(7)}${medians}${cell(median(figures.total), median(figures.totalLab))}${cell(median(figures.indexed)).slice(3)}`,
    );
    const byPhase = (lists: number[][]) =>
      Object.fromEntries(PHASES.map((phase, i) => [phase, round(median(lists[i]!), 0)]));
    byIndexer[label] = {
      medianMs: { ...byPhase(figures.phase), total: round(median(figures.total), 0) },
      medianLabWaitMs: { ...byPhase(figures.lab), total: round(median(figures.totalLab), 0) },
      medianIndexedAfterMs: round(median(figures.indexed), 0),
      totalMs: figures.total.map((ms) => round(ms, 0)),
    };
    const expected = 1_000_000 - 10 * rounds;
    const balance = await payer.assetBalance(asset.assetId);
    if (balance.settled !== expected) throw new Error(`the payer holds ${balance.settled}, not ${expected}`);
  }
  indexer.close();
  bench.record(byIndexer);
} finally {
  for (const meter of meters) await meter.close();
  await lab.stop();
}
