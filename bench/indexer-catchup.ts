// How fast the indexer catches up with btcd: builds a regtest chain with transactions in its
// blocks, then times a fresh index from genesis to the tip. Prints blocks/s and tx/s.
//   npx tsx bench/indexer-catchup.ts     (BENCH_BLOCKS: blocks with transactions, default 300;
//   BENCH_RUNS: catch-ups from genesis into a fresh index, default 3)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { networks, payments } from 'bitcoinjs-lib';
import { createChainDriver } from '../lib/chain/from-env.js';
import type { BtcdDriver } from '../lib/chain/btcd.js';
import { btcdLaunch, BTCD_RPC_CERT_FILE } from '../control-plane/src/nodes/btcd/launch.js';
import { nodeBinary } from '../control-plane/src/home.js';
import { startDetached, stopProcessGroup } from '../control-plane/src/runtimes/process/child.js';
import { freePorts } from '../control-plane/src/util/ports.js';
import { waitFor } from '../lib/wait.js';
import { LabWallet } from '../control-plane/src/wallet/lab-wallet.js';
import { newPrivateKeyHex, regtestKey } from '../control-plane/src/wallet/keys.js';
import { startIndexer } from '../services/indexer/src/indexer.js';
import { benchRun, round } from './results.js';

/** Enough BIP9 windows for segwit to be active on btcd's regtest (what lnd's harness mines). */
const ACTIVATION_BLOCKS = 150 + 2 * 144;
const blocksWithTxs = Number(process.env.BENCH_BLOCKS ?? 300);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const txsPerBlock = 2;
const payoutsPerTx = 5;

const bench = benchRun('indexer-catchup', { blocksWithTxs, runs });
const dir = mkdtempSync(join(tmpdir(), 'bench-indexer-'));
const btcdBinary = nodeBinary('btcd');
if (!existsSync(btcdBinary))
  throw new Error(`btcd is missing at ${btcdBinary}: run \`npm run setup\` (scripts/build-nodes.sh) first`);
const walletKey = newPrivateKeyHex();
const [rpcPort, p2pPort] = await freePorts(2);
const launch = btcdLaunch(
  {
    listenHost: '127.0.0.1',
    port: (name) => (name === 'rpc' ? rpcPort! : p2pPort!),
    dataDir: dir,
    reach: () => '',
    hostPeer: 'loopback',
  },
  { rpcUser: 'bench', rpcPassword: 'bench', miningAddress: regtestKey(walletKey).address },
);
const pid = startDetached({ command: btcdBinary, args: launch.args }, join(dir, 'btcd.log'));
const cleanup = async () => {
  await stopProcessGroup(pid);
  rmSync(dir, { recursive: true, force: true });
};

try {
  const certFile = join(dir, BTCD_RPC_CERT_FILE);
  await waitFor(async () => existsSync(certFile), {
    timeoutMs: 30_000,
    what: `btcd's certificate (log: ${dir}/btcd.log)`,
  });
  const chain = createChainDriver({
    kind: 'btcd',
    url: `https://127.0.0.1:${rpcPort}`,
    user: 'bench',
    password: 'bench',
    tlsCertPem: readFileSync(certFile, 'utf8'),
  }) as BtcdDriver;
  await waitFor(async () => (await chain.getBlockCount()) >= 0, { timeoutMs: 30_000, what: 'btcd RPC' });

  process.stdout.write(
    `building the chain: ${ACTIVATION_BLOCKS} blocks, then ${blocksWithTxs} blocks of ${txsPerBlock} txs...\n`,
  );
  await chain.generate(ACTIVATION_BLOCKS);
  const wallet = new LabWallet(chain, walletKey);
  const randomAddress = () => payments.p2wpkh({ hash: randomBytes(20), network: networks.regtest }).address!;
  let txCount = 0;
  for (let block = 0; block < blocksWithTxs; block++) {
    for (let tx = 0; tx < txsPerBlock; tx++) {
      await wallet.send(Array.from({ length: payoutsPerTx }, () => ({ address: randomAddress(), amountSat: 10_000n })));
      txCount++;
    }
    await chain.mine(1, wallet.address);
  }
  const tip = await chain.getBlockCount();

  const blocks = tip + 1;
  const txs = blocks - 1 + txCount; // every block but genesis has a coinbase
  const speeds: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const started = process.hrtime.bigint();
    const indexer = await startIndexer(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir: join(dir, `index-${run}`),
        chain: { kind: 'btcd', url: '', user: '', password: '' },
        pollMs: 50,
        logLevel: 'warn',
        banner: 'bench',
      },
      { driver: chain },
    );
    await waitFor(async () => indexer.height() === tip, {
      timeoutMs: 600_000,
      intervalMs: 5,
      what: `the indexer to reach height ${tip}`,
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await indexer.close();
    speeds.push(blocks / seconds);
    process.stdout.write(
      `indexer catch-up, run ${run}: ${blocks} blocks (${txs} txs) in ${seconds.toFixed(2)} s: ` +
        `${(blocks / seconds).toFixed(1)} blocks/s, ${(txs / seconds).toFixed(1)} tx/s\n`,
    );
  }
  chain.close();
  const blocksPerS = speeds.map((speed) => Math.round(speed));
  speeds.sort((a, b) => a - b);
  const median = speeds[Math.floor(speeds.length / 2)]!;
  bench.record({
    blocks,
    txs,
    blocksPerS,
    medianBlocksPerS: Math.round(median),
    medianTxPerS: round((median * txs) / blocks, 0),
  });
  process.stdout.write(
    `indexer catch-up speed: median ${median.toFixed(1)} blocks/s over ${runs} runs ` +
      `(load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})\n`,
  );
} finally {
  await cleanup();
}
