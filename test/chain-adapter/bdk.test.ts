// A real Esplora client against the adapter: a BDK wallet (bdkpython, BDK's own bindings) syncs
// through EsploraClient, sees its coins, spends them through POST /api/tx and sees that confirmed.
// Its own lab of btcd alone (up in about a second): the adapter and indexer run in the test.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import type { EsploraTx, EsploraUtxo } from '../../services/chain-adapter/src/esplora/types.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { freshKey, startAdapter, waitIndexed, type RunningAdapter } from './support.js';

const run = promisify(execFile);
const BDK_PYTHON_VERSION = '3.1.1';
const venv =
  process.env.BDK_VENV ??
  join(process.env.REGLAB_CACHE_DIR ?? join(homedir(), '.cache', 'reglab'), `bdk-venv-${BDK_PYTHON_VERSION}`);
const python = join(venv, 'bin', 'python');
const script = join(import.meta.dirname, 'bdk-wallet.py');

/** bdkpython from PyPI in a venv of the lab's cache, installed on first use. */
async function ensureBdk(): Promise<void> {
  if (
    existsSync(python) &&
    (await run(python, ['-c', 'import bdkpython']).then(
      () => true,
      () => false,
    ))
  )
    return;
  try {
    await run('python3', ['-m', 'venv', venv]);
    await run(join(venv, 'bin', 'pip'), ['install', '--quiet', `bdkpython==${BDK_PYTHON_VERSION}`], {
      timeout: 300_000,
    });
  } catch (error) {
    throw new Error(
      `this test needs BDK's Python bindings: python3 -m venv ${venv} && ${venv}/bin/pip install bdkpython==${BDK_PYTHON_VERSION} (${(error as Error).message})`,
    );
  }
}

async function bdk<T>(...args: string[]): Promise<T> {
  const { stdout } = await run(python, [script, ...args], { timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

interface WalletView {
  confirmed_sat: number;
  pending_sat: number;
  tip_height: number;
  server_height: number;
  txs: { txid: string; confirmed: boolean }[];
  fee_estimates: Record<string, number>;
}

describe('a BDK wallet (bdkpython EsploraClient) against the adapter', () => {
  let regtest: Regtest;
  let adapter: RunningAdapter;

  beforeAll(async () => {
    await ensureBdk();
    regtest = await startRegtest();
    adapter = await startAdapter(regtest);
  });
  afterAll(async () => {
    await adapter?.close();
    await regtest?.stop();
  });

  it('syncs its funding, spends through POST /api/tx and sees the spend confirmed', async () => {
    const api = `${adapter.url}/api`;
    const wallet = await bdk<{ mnemonic: string; address: string }>('new');
    const funding = await regtest.session.labWallet.send([{ address: wallet.address, amountSat: 200_000n }]);
    await regtest.chain.mine(1, freshKey().address);
    const fundedHeight = await waitIndexed(adapter, regtest);

    const funded = await bdk<WalletView>('sync', wallet.mnemonic, api);
    expect(funded).toMatchObject({
      confirmed_sat: 200_000,
      pending_sat: 0,
      tip_height: fundedHeight,
      server_height: fundedHeight,
      txs: [{ txid: funding, confirmed: true }],
    });
    expect(funded.fee_estimates['1']).toBe(20);

    const destination = freshKey().address;
    const { txid } = await bdk<{ txid: string }>('spend', wallet.mnemonic, api, destination, '50000');
    await waitFor(
      async () =>
        (await adapter.get<EsploraTx[]>(`/api/address/${destination}/txs/mempool`)).some((tx) => tx.txid === txid),
      {
        timeoutMs: 20_000,
        what: 'the BDK spend in the mempool',
      },
    );
    const pending = await bdk<WalletView>('sync', wallet.mnemonic, api);
    expect(pending.txs).toContainEqual({ txid, confirmed: false });

    await regtest.chain.mine(1, freshKey().address);
    await waitIndexed(adapter, regtest);
    const spent = await bdk<WalletView>('sync', wallet.mnemonic, api);
    const fee = (await adapter.get<EsploraTx>(`/api/tx/${txid}`)).fee;
    expect(spent.confirmed_sat).toBe(200_000 - 50_000 - fee);
    expect(spent.txs).toEqual(
      [
        { txid: funding, confirmed: true },
        { txid, confirmed: true },
      ].sort((a, b) => a.txid.localeCompare(b.txid)),
    );
    expect(await adapter.get<EsploraUtxo[]>(`/api/address/${destination}/utxo`)).toEqual([
      expect.objectContaining({ txid, value: 50_000, status: expect.objectContaining({ confirmed: true }) }),
    ]);
  });
});
