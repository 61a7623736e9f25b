// npm run bench:chain-rpc
// What one JSON-RPC call to btcd costs in CPU, the caller's and btcd's, and in time: over btcd's
// websocket, one connection for every call (JsonRpcClient for btcd), side by side with a connection
// of its own per call over HTTPS (the HTTP transport, as for bitcoind; btcd closes each HTTP
// connection after its answer, so each call is a TLS handshake). Three rounds of BENCH_CALLS
// sequential getblockcount calls each (default 300); the median round is recorded.
import { JsonRpcClient } from '../lib/chain/rpc.js';
import { startRegtest } from '../test/support/regtest.js';
import { ownCpuMs } from './proc.js';
import { benchRun, round } from './results.js';

const calls = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = 3;

const bench = benchRun('chain-rpc', { calls, rounds: ROUNDS });
const regtest = await startRegtest({});
try {
  const handle = regtest.lab.services.chain?.handle;
  if (handle?.runtime !== 'process') throw new Error('btcd runs no process');
  const btcd = handle.pid;

  /** Per call: the caller's CPU, btcd's CPU and the time, in ms, over `rounds` rounds (their median). */
  const measure = async (client: JsonRpcClient) => {
    await client.call('getblockcount');
    const rounds: { callerMs: number; btcdMs: number; wallMs: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const caller = process.cpuUsage();
      const btcdBefore = ownCpuMs(btcd);
      const started = performance.now();
      for (let i = 0; i < calls; i++) await client.call('getblockcount');
      const used = process.cpuUsage(caller);
      rounds.push({
        callerMs: (used.user + used.system) / 1000 / calls,
        btcdMs: (ownCpuMs(btcd) - btcdBefore) / calls,
        wallMs: (performance.now() - started) / calls,
      });
    }
    client.close();
    const median = rounds.sort((a, b) => a.callerMs + a.btcdMs - (b.callerMs + b.btcdMs))[1]!;
    return { callerMs: round(median.callerMs, 2), btcdMs: round(median.btcdMs, 2), wallMs: round(median.wallMs, 2) };
  };

  const websocket = await measure(new JsonRpcClient(regtest.chainRpc));
  const https = await measure(new JsonRpcClient({ ...regtest.chainRpc, kind: 'bitcoind' }));
  console.log(`per getblockcount call, median of ${ROUNDS} rounds of ${calls}:`);
  for (const [name, figures] of Object.entries({ websocket, 'https (a connection per call)': https }))
    console.log(
      `  ${name.padEnd(30)} caller ${figures.callerMs} ms CPU, btcd ${figures.btcdMs} ms CPU, ${figures.wallMs} ms`,
    );
  bench.record({ websocket, https });
} finally {
  await regtest.stop();
}
