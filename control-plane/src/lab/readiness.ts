import { createConnection } from 'node:net';
import pg from 'pg';
import { Redis } from 'ioredis';
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
      return probePostgres(`postgres://postgres@${address('sql')}/postgres`);
    case 'redis':
      return probeRedis(`redis://${address('redis')}`);
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
      return probeHttp(`http://${address('api')}/networkinfo`);
  }
}

async function probePostgres(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeRedis(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } finally {
    client.disconnect();
  }
}

async function probeHttp(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return response.ok;
}

/** An Electrum server is ready when it answers server.version on its TCP port. */
function probeElectrum(hostPort: string): Promise<boolean> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port: Number(port) });
    socket.setTimeout(2_000, () => socket.destroy(new Error('no answer')));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'server.version', params: ['reglab-probe', '1.4'] }) + '\n'));
    socket.on('data', (data) => {
      socket.destroy();
      resolve(data.toString().includes('"result"'));
    });
  });
}
