import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../services/wallet-server/src/app.js';
import { loadConfig } from '../../services/wallet-server/src/config.js';
import { startRedis, type RunningServer } from '../support/infra.js';
import { as, createWallet, enrollAndSignIn, fund, newKey, signIn } from './support.js';

describe('wallet-server without DATABASE_URL (embedded PGlite)', () => {
  let redis: RunningServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'ws-pglite-'));

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs sign-in, wallets and transfers on the in-memory default', async () => {
    const config = loadConfig({ REDIS_URL: redis.url });
    expect(config.databaseUrl).toBeUndefined();
    const app = await buildApp(config, { logger: false });
    try {
      expect(app.db.kind).toBe('pglite');
      expect((await app.inject({ url: '/health' })).json()).toMatchObject({
        status: 'ok',
        checks: { postgres: { ok: true, details: { kind: 'pglite' } } },
      });
      const user = await enrollAndSignIn(app);
      const a = await createWallet(app, user.accessToken, 'a');
      const b = await createWallet(app, user.accessToken, 'b');
      await fund(app, a, 3_000n);
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          as(
            app,
            user.accessToken,
          )({
            method: 'POST',
            url: '/payments/internal',
            payload: { from_wallet_id: a, to_wallet_id: b, asset_kind: 'btc', amount_msat: 1_000 },
          }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
      expect((await as(app, user.accessToken)({ url: `/wallets/${b}` })).json().balance_msat).toBe('3000');
    } finally {
      await app.close();
    }
  });

  it('keeps users and balances across a restart with PGLITE_DATA_DIR', async () => {
    const key = newKey();
    const config = loadConfig({ REDIS_URL: redis.url, PGLITE_DATA_DIR: dataDir, TOKEN_SECRET: 'test-secret' });
    const first = await buildApp(config, { logger: false });
    const user = await enrollAndSignIn(first, key);
    const wallet = await createWallet(first, user.accessToken, 'kept');
    await fund(first, wallet, 42n);
    await first.close();

    const second = await buildApp(config, { logger: false });
    try {
      const again = await signIn(second, key);
      expect((await as(second, again.accessToken)({ url: `/wallets/${wallet}` })).json().balance_msat).toBe('42');
    } finally {
      await second.close();
    }
  });
});
