// The real Electrum wallet (Debian's `electrum`, 4.3.4) against the indexer: it verifies headers
// from the regtest genesis and Merkle proofs of its transactions, so passing here means the
// indexer's headers and proofs are right.
// Its own lab of btcd alone (up in about a second): the indexer it checks runs in the test.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { networks, payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fund, mineBlocks } from '../../control-plane/src/lab/operations.js';
import { waitFor } from '../../lib/wait.js';
import { startIndexer, type RunningIndexer } from '../../services/indexer/src/indexer.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

const ELECTRUM = '/usr/bin/electrum';
const run = promisify(execFile);

describe('Debian electrum wallet against the indexer', () => {
  let regtest: Regtest;
  let indexer: RunningIndexer;
  let home: string;
  let daemonStarted = false;

  const electrum = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(ELECTRUM, ['--regtest', ...args], {
      env: { ...process.env, HOME: home },
      timeout: 60_000,
    });
    return stdout.trim();
  };
  const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await electrum(...args)) as T;

  beforeAll(async () => {
    if (!existsSync(ELECTRUM))
      throw new Error(`${ELECTRUM} is missing: apt-get install -y --no-install-recommends electrum`);
    home = mkdtempSync(join(tmpdir(), 'indexer-electrum-'));
    regtest = await startRegtest();
    indexer = await startIndexer({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(home, 'index'),
      chain: regtest.chainRpc,
      pollMs: 100,
      logLevel: 'warn',
      banner: 'test',
    });
  });

  afterAll(async () => {
    if (daemonStarted) await electrum('stop').catch(() => undefined);
    await indexer?.close();
    await regtest?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('sees a funded address, verifies it and spends from it', async () => {
    await electrum('--offline', 'create', '--seed_type', 'segwit');
    const address = await electrum('--offline', 'getunusedaddress');
    const { txid: fundingTxid } = await fund(regtest.session, { address, amountSat: 100_000_000n });

    await electrum('daemon', '-d', '--oneserver', '--server', `127.0.0.1:${indexer.port}:t`);
    daemonStarted = true;
    await electrum('load_wallet');
    const tip = await regtest.chain.getBlockCount();
    await waitFor(
      async () => {
        const info = await json<{ connected: boolean; blockchain_height: number }>('getinfo');
        return info.connected && info.blockchain_height === tip;
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: 'electrum to connect and verify the headers up to the tip' },
    );
    await waitFor(async () => Number((await json<{ confirmed?: string }>('getbalance')).confirmed) === 1, {
      timeoutMs: 60_000,
      intervalMs: 1_000,
      what: 'electrum to show the confirmed 1 BTC',
    });

    const recipient = payments.p2wpkh({ hash: randomBytes(20), network: networks.regtest }).address!;
    const signed = await electrum('payto', recipient, '0.25');
    const spendTxid = await electrum('broadcast', signed);
    expect(spendTxid).toMatch(/^[0-9a-f]{64}$/);
    await mineBlocks(regtest.session, 1);

    // txpos_in_block is set only once electrum has checked the tx's Merkle proof against its headers.
    type HistoryItem = { txid: string; height: number; txpos_in_block?: number };
    await waitFor(
      async () => {
        const { transactions } = await json<{ transactions: HistoryItem[] }>('onchain_history');
        return [fundingTxid, spendTxid].every((txid) =>
          transactions.some((tx) => tx.txid === txid && tx.height > 0 && tx.txpos_in_block !== undefined),
        );
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: 'electrum to show both transactions confirmed and verified' },
    );
    const balance = await json<{ confirmed: string; unconfirmed?: string }>('getbalance');
    expect(balance.unconfirmed).toBeUndefined();
    expect(Number(balance.confirmed)).toBeGreaterThan(0.74);
    expect(Number(balance.confirmed)).toBeLessThan(0.75);
  });
});
