import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { waitFor } from '../../lib/wait.js';
import { buildApp } from '../../services/wallet-server/src/app.js';
import { loadConfig } from '../../services/wallet-server/src/config.js';
import {
  as,
  createWallet,
  enrollAndSignIn,
  REGTEST_ADDRESS,
  newKey,
  startInfra,
  type Infra,
  type TestUser,
} from './support.js';
import { startTcpProxy, type TcpProxy } from '../support/proxy.js';

describe('wallet-server when Postgres or Redis goes away', () => {
  let infra: Infra;
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let app: FastifyInstance;
  let user: TestUser;
  let wallet: string;

  beforeAll(async () => {
    infra = await startInfra();
    const dbUrl = await infra.postgres.createDatabase('outage');
    [pgProxy, redisProxy] = await Promise.all([startTcpProxy(infra.postgres.port), startTcpProxy(infra.redis.port)]);
    const config = loadConfig({
      DATABASE_URL: dbUrl.replace(`:${infra.postgres.port}/`, `:${pgProxy.port}/`),
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    });
    app = await buildApp(config, { logger: false });
    user = await enrollAndSignIn(app);
    wallet = await createWallet(app, user.accessToken);
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([pgProxy?.close(), redisProxy?.close()]);
    await infra?.stop();
  });

  it('answers 502 with a JSON error while Postgres is away, and recovers', async () => {
    await pgProxy.cut();
    const res = await as(app, user.accessToken)({ url: `/wallets/${wallet}` });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(res.json().error.message).toMatch(/postgres/);
    const enroll = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: newKey().pubkey, bitcoin_address: REGTEST_ADDRESS },
    });
    expect(enroll.statusCode).toBe(502);
    const health = await app.inject({ url: '/health' });
    expect(health.statusCode).toBe(502);
    expect(health.json()).toMatchObject({
      status: 'degraded',
      checks: { postgres: { ok: false }, redis: { ok: true } },
    });
    await pgProxy.restore();
    await waitFor(async () => (await as(app, user.accessToken)({ url: `/wallets/${wallet}` })).statusCode === 200, {
      timeoutMs: 10_000,
      what: 'the wallet to be served again',
    });
    expect((await app.inject({ url: '/health' })).json().status).toBe('ok');
  });

  it('answers 502 while Redis is away (challenge, refresh, logout, bearer calls), and recovers', async () => {
    await redisProxy.cut();
    const challenge = await app.inject({ url: `/auth/challenge?pubkey=${user.pubkey}` });
    expect(challenge.statusCode).toBe(502);
    expect(challenge.json().error.message).toMatch(/redis/);
    expect(
      (await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: user.refreshToken } }))
        .statusCode,
    ).toBe(502);
    expect(
      (await app.inject({ method: 'POST', url: '/auth/logout', payload: { refresh_token: user.refreshToken } }))
        .statusCode,
    ).toBe(502);
    expect((await as(app, user.accessToken)({ url: '/me' })).statusCode).toBe(502);
    expect((await app.inject({ url: '/health' })).json().checks.redis.ok).toBe(false);
    await redisProxy.restore();
    await waitFor(async () => (await as(app, user.accessToken)({ url: '/me' })).statusCode === 200, {
      timeoutMs: 10_000,
      what: '/me to be served again',
    });
    expect(
      (await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: user.refreshToken } }))
        .statusCode,
    ).toBe(200);
  });
});
