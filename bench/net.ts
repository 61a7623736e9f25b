// What one Toxiproxy link costs, as a lab with network faults puts one on every link between nodes:
// round trips of a small message over one TCP connection, connections opened, and bulk transfer,
// each straight to a TCP echo server and through a proxy of toxiproxy-server (no toxic), the same
// way. Then the same round trip with a 200 ms delay set on the link, as `reglab net delay` sets it.
//   npm run bench:net    (BENCH_ROUND_TRIPS: small-message round trips per path, default 5000)
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { nodeBinary } from '../control-plane/src/home.js';
import { toxicsFor } from '../control-plane/src/network/toxics.js';
import { ToxiproxyApi } from '../control-plane/src/network/toxiproxy-api.js';
import { freePort } from '../control-plane/src/util/ports.js';
import { waitFor } from '../lib/wait.js';
import { benchRun, round } from './results.js';

const roundTrips = Number(process.env.BENCH_ROUND_TRIPS ?? 5_000);
const CONNECTIONS = 500;
const BULK_BYTES = 64 * 2 ** 20;
const DELAYED_ROUND_TRIPS = 20;
const MESSAGE = Buffer.alloc(64, 7);

/** A TCP server that sends back what it gets. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.pipe(socket));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port };
}

const opened = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });

/** Sends `bytes` and waits until as many have come back. */
function echo(socket: Socket, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    let left = bytes.length;
    const onData = (chunk: Buffer) => {
      left -= chunk.length;
      if (left <= 0) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
    socket.write(bytes);
  });
}

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];

/** Microseconds of each round trip of the 64-byte message over one connection, after a few to warm up. */
async function roundTripTimesUs(port: number, count: number): Promise<number[]> {
  const socket = await opened(port);
  for (let i = 0; i < Math.min(200, Math.ceil(count / 4)); i++) await echo(socket, MESSAGE);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await echo(socket, MESSAGE);
    times.push((performance.now() - start) * 1_000);
  }
  socket.destroy();
  return times;
}

function spread(times: number[]): { p50: number; p90: number; p99: number; mean: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 0.5)),
    p90: round(percentile(sorted, 0.9)),
    p99: round(percentile(sorted, 0.99)),
    mean: round(sorted.reduce((sum, time) => sum + time, 0) / sorted.length),
  };
}

/** Microseconds to open a connection and have one message back, the median of CONNECTIONS. */
async function connectUs(port: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const start = performance.now();
    const socket = await opened(port);
    await echo(socket, MESSAGE);
    times.push((performance.now() - start) * 1_000);
    socket.destroy();
  }
  return round(
    percentile(
      times.sort((a, b) => a - b),
      0.5,
    ),
  );
}

/** MiB/s of BULK_BYTES sent and echoed back over one connection. */
async function bulkMiBPerS(port: number): Promise<number> {
  const socket = await opened(port);
  const start = performance.now();
  await echo(socket, Buffer.alloc(BULK_BYTES, 1));
  const seconds = (performance.now() - start) / 1_000;
  socket.destroy();
  return round(BULK_BYTES / 2 ** 20 / seconds);
}

async function startToxiproxy(): Promise<{ child: ChildProcess; api: ToxiproxyApi }> {
  const binary = nodeBinary('toxiproxy-server');
  if (!existsSync(binary)) throw new Error(`${binary} is missing: build it with \`bash scripts/build-toxiproxy.sh\``);
  const port = await freePort();
  const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
  const api = new ToxiproxyApi(`http://127.0.0.1:${port}`);
  await waitFor(() => api.version().then(Boolean), { timeoutMs: 10_000, intervalMs: 50, what: 'toxiproxy-server' });
  return { child, api };
}

const bench = benchRun('net', { roundTrips, connections: CONNECTIONS, bulkMiB: BULK_BYTES / 2 ** 20 });
const { server, port: direct } = await echoServer();
const { child, api } = await startToxiproxy();
try {
  const proxied = await freePort();
  await api.populate([
    { name: 'bench', listen: `127.0.0.1:${proxied}`, upstream: `127.0.0.1:${direct}`, enabled: true },
  ]);
  // each path in two halves, taken in turn, so that a busy moment of the shared machine does not fall on one only
  const [directTimes, proxiedTimes]: number[][] = [[], []];
  for (let half = 0; half < 2; half++) {
    directTimes.push(...(await roundTripTimesUs(direct, roundTrips / 2)));
    proxiedTimes.push(...(await roundTripTimesUs(proxied, roundTrips / 2)));
  }
  const [directTrips, proxiedTrips] = [spread(directTimes), spread(proxiedTimes)];
  const figures = {
    roundTripUs: { direct: directTrips, proxied: proxiedTrips },
    addedRoundTripUs: {
      p50: round(proxiedTrips.p50 - directTrips.p50),
      p99: round(proxiedTrips.p99 - directTrips.p99),
    },
    connectAndEchoUs: { direct: await connectUs(direct), proxied: await connectUs(proxied) },
    bulkEchoMiBPerS: { direct: await bulkMiBPerS(direct), proxied: await bulkMiBPerS(proxied) },
    delayed200MsRoundTripMs: 0,
  };
  for (const toxic of toxicsFor({ latencyMs: 200 })) await api.addToxic('bench', toxic);
  figures.delayed200MsRoundTripMs = round(spread(await roundTripTimesUs(proxied, DELAYED_ROUND_TRIPS)).p50 / 1_000);
  console.log(JSON.stringify(figures, null, 2));
  bench.record(figures);
} finally {
  child.kill('SIGKILL');
  server.close();
}
