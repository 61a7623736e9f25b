import { createConnection } from 'node:net';
import { pingPostgres } from '../managed/postgres.js';
import { pingRedis } from '../managed/redis.js';
import type { ServiceKind } from '../kinds/types.js';
import type { LabSession } from './session.js';
import { waitNodeSynced } from './operations.js';

/** One probe per kind: what "ready" means for that kind of service. Throws or returns false while not ready. */
export async function probeReady(session: LabSession, service: string, kind: ServiceKind): Promise<boolean> {
  const address = (port: string) => session.connections.hostAddress(service, port);
  switch (kind) {
    case 'btcd':
    case 'bitcoind':
      await session.loadChainCredentials();
      return (await session.chain.getBlockCount()) >= 0;
    case 'lnd':
      await session.loadLndCredentials(service);
      await waitNodeSynced(session, service, { timeoutMs: 1_000 });
      return true;
    case 'postgres':
      return pingPostgres(`postgres://postgres@${address('sql')}/postgres`);
    case 'redis':
      return pingRedis(`redis://${address('redis')}`);
    case 'indexer':
    case 'electrs':
      return probeElectrum(address('electrum'));
    case 'wallet-server':
      return probeHttp(`http://${address('http')}/health`);
    case 'faucet':
      return probeHttp(`http://${address('http')}/api/status`);
    case 'chain-adapter':
      return probeHttp(`http://${address('http')}/api/health`);
    case 'rln':
      // any answer will do: before /init and /unlock RLN answers its API with 403
      return probeHttp(`http://${address('api')}/networkinfo`, { anyStatus: true });
  }
}

async function probeHttp(url: string, options: { anyStatus?: boolean } = {}): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return options.anyStatus === true || response.ok;
}

/** An Electrum server is ready when it answers server.version on its TCP port. */
async function probeElectrum(hostPort: string): Promise<boolean> {
  return (await electrumCall(hostPort, 'server.version', ['reglab-probe', '1.4'])) !== undefined;
}

/** The height of the newest block an Electrum server serves. */
export async function electrumTipHeight(hostPort: string): Promise<number> {
  return ((await electrumCall(hostPort, 'blockchain.headers.subscribe', [])) as { height: number }).height;
}

/** One JSON-RPC call on a fresh connection (newline-delimited, as the Electrum protocol is). */
export function electrumCall(hostPort: string, method: string, params: unknown[]): Promise<unknown> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port: Number(port) });
    let received = '';
    socket.setTimeout(2_000, () => socket.destroy(new Error(`no answer to ${method} from ${hostPort}`)));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }) + '\n'));
    socket.on('data', (data) => {
      received += data.toString();
      if (!received.includes('\n')) return;
      socket.destroy();
      const answer = JSON.parse(received.slice(0, received.indexOf('\n'))) as { result?: unknown; error?: { message?: string } };
      if (answer.error) reject(new Error(`${method}: ${answer.error.message ?? 'error'}`));
      else resolve(answer.result);
    });
  });
}
