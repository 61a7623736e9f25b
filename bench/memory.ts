// npm run bench:memory [-- --node-options=--max-semi-space-size=2]
// Resident memory of each process of a lab with every lab service: btcd, lnd alice and bob, the
// indexer, Postgres, Redis, the wallet server, the faucet and the chain adapter (the process
// runtime, as `reglab up` runs them). Each service is first exercised (health, OpenAPI and docs
// pages, a sign-in, an invoice, chain reads, an Electrum session), then RSS is read from /proc.
// --node-options is given to the lab's Node services as NODE_OPTIONS, to compare heap settings.
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startRegtest, type Regtest } from '../test/support/regtest.js';
import { newKey, REGTEST_ADDRESS, signNonce } from '../test/wallet-server/support.js';
import { mib, treeRssBytes } from './proc.js';

const NODE_SERVICES = ['wallet-server', 'faucet', 'chain-adapter', 'indexer'];

const { values } = parseArgs({ options: { 'node-options': { type: 'string' } } });
// Read by the services this process starts (the process runtime passes its environment on).
if (values['node-options']) process.env.NODE_OPTIONS = values['node-options'];

async function ok(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  ok(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function exerciseWalletServer(base: string): Promise<void> {
  const key = newKey();
  await postJson(`${base}/auth/enroll`, { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS });
  const { nonce } = (await (await ok(`${base}/auth/challenge?pubkey=${key.pubkey}`)).json()) as { nonce: string };
  const { access_token: token } = (await (await postJson(`${base}/auth/verify`, { pubkey: key.pubkey, nonce, signature: await signNonce(key.secretKey, nonce) })).json()) as { access_token: string };
  const { id } = (await (await postJson(`${base}/wallets`, { name: 'memory' }, { authorization: `Bearer ${token}` })).json()) as { id: string };
  await postJson(`${base}/payments/invoices`, { amount_msat: 1000 }, { authorization: `Bearer ${token}`, 'x-service-wallet-key': id });
}

/** One Electrum session: version, tip header subscription. */
function exerciseIndexer(address: string): Promise<void> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => {
      socket.write(`${JSON.stringify({ id: 1, method: 'server.version', params: ['bench', '1.4'] })}\n`);
      socket.write(`${JSON.stringify({ id: 2, method: 'blockchain.headers.subscribe', params: [] })}\n`);
    });
    let answers = '';
    socket.on('data', (chunk) => {
      answers += chunk.toString();
      if (answers.split('\n').length > 2) {
        socket.end();
        resolve();
      }
    });
    socket.on('error', reject);
  });
}

async function exercise(regtest: Regtest): Promise<void> {
  const http = (service: string) => `http://${regtest.address(service, 'http')}`;
  for (const service of ['wallet-server', 'faucet', 'chain-adapter']) {
    for (const path of ['/openapi.json', '/docs']) await ok(`${http(service)}${path}`);
  }
  await exerciseWalletServer(http('wallet-server'));
  await ok(`${http('faucet')}/`);
  await ok(`${http('faucet')}/api/status`);
  await ok(`${http('chain-adapter')}/api/blocks/tip/height`);
  await ok(`${http('chain-adapter')}/api/v1/fees/recommended`);
  await exerciseIndexer(regtest.address('indexer', 'electrum'));
}

function pidOf(regtest: Regtest, service: string): number | undefined {
  const handle = regtest.lab.services[service]?.handle;
  return handle?.runtime === 'process' ? handle.pid : undefined;
}

console.log(`lab with every service on the process runtime${process.env.NODE_OPTIONS ? `, NODE_OPTIONS="${process.env.NODE_OPTIONS}"` : ''}...`);
const regtest = await startRegtest({
  lnd: ['alice', 'bob'],
  channels: [{ from: 'alice', to: 'bob', capacity_sat: 1_000_000 }],
  indexer: true,
  services: {
    'wallet-server': { node: 'alice', admin_pubkeys: [] },
    faucet: { node: 'alice', claim_sat: 100_000, cooldown_seconds: 900 },
    'chain-adapter': {},
  },
});
try {
  await exercise(regtest);
  // Let start-up garbage be collected and timers settle before reading.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const rows = Object.keys(regtest.lab.services)
    .map((service) => ({ service, pid: pidOf(regtest, service) }))
    .filter((row): row is { service: string; pid: number } => row.pid !== undefined)
    .map((row) => ({ ...row, rss: treeRssBytes(row.pid) }))
    .sort((a, b) => b.rss - a.rss);
  for (const row of rows) console.log(`  ${row.service.padEnd(16)} ${mib(row.rss).padStart(8)}${NODE_SERVICES.includes(row.service) ? '   (Node service)' : ''}`);
  const sum = (list: typeof rows) => list.reduce((total, row) => total + row.rss, 0);
  console.log(`  Node services    ${mib(sum(rows.filter((r) => NODE_SERVICES.includes(r.service)))).padStart(8)}`);
  console.log(`  all processes    ${mib(sum(rows)).padStart(8)}   (${rows.length} processes; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
} finally {
  await regtest.stop();
}
