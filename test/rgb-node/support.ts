// rgb nodes (services/rgb-node) and the lab's consignment proxy (services/rgb-proxy) as the lab runs
// them, one process each, over a real lab's chain and indexers.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mineBlocks } from '../../control-plane/src/lab/operations.js';
import type { RlnChainAccess } from '../../control-plane/src/nodes/rln/start-sequence.js';
import { RlnClient } from '../../lib/rln/client.js';
import { runEntryPoint, type RunningEntryPoint } from '../chain-adapter/support.js';
import type { Regtest } from '../support/regtest.js';

export interface RgbNodeProcess {
  url: string;
  dataDir: string;
  client: RlnClient;
  /** A raw call: the status and the parsed body, whatever they are. */
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<number | null>;
}

/** A folder for one test file's nodes and proxy; remove it in afterAll. */
export const testFolder = () => mkdtempSync(join(tmpdir(), 'rgb-node-test-'));

/** A node with its data in `dataDir` (a new folder starts a new node; the same folder restarts one). */
export async function startRgbNode(
  env: { INDEXER_URL?: string; PROXY_ENDPOINT?: string },
  dataDir: string,
): Promise<RgbNodeProcess> {
  const running = await runEntryPoint(
    'services/rgb-node/src/main.ts',
    { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    '/openapi.json',
  );
  return {
    url: running.url,
    dataDir,
    client: new RlnClient(running.url),
    async call(method, path, body) {
      const response = await fetch(`${running.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    stop: () => running.stop(),
  };
}

export async function startRgbProxy(dataDir: string): Promise<RunningEntryPoint & { endpoint: string }> {
  const running = await runEntryPoint(
    'services/rgb-proxy/src/main.ts',
    { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    '/openapi.json',
  );
  return { ...running, endpoint: `${running.url.replace(/^http/, 'rpc')}/json-rpc` };
}

/**
 * The lab as RLN's start sequence reaches it: blocks mined by the lab, funds from the lab wallet, the tip the Esplora
 * adapter serves.
 */
export function labChain(regtest: Regtest, esploraUrl: string): RlnChainAccess {
  return {
    height: () => regtest.chain.getBlockCount(),
    mine: async (blocks) => void (await mineBlocks(regtest.session, blocks)),
    send: async (address, amountSat) => void (await regtest.session.labWallet.send([{ address, amountSat }])),
    indexedHeight: async () => Number(await (await fetch(`${esploraUrl}/blocks/tip/height`)).text()),
  };
}
