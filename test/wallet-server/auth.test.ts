import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAsync } from '@noble/secp256k1';
import type { FastifyInstance } from 'fastify';
import { loginMessage } from '../../services/wallet-server/src/auth/keys.js';
import { waitFor } from '../../lib/wait.js';
import { appOn, as, enrollAndSignIn, newKey, REGTEST_ADDRESS, signNonce, startInfra, type Infra } from './support.js';

describe('wallet-server sign-in by key proof', () => {
  let infra: Infra;
  let app: FastifyInstance;
  const admin = newKey();
  let adminToken: string;

  beforeAll(async () => {
    infra = await startInfra();
    ({ app } = await appOn(infra, { ADMIN_PUBKEYS: admin.pubkey, ACCESS_TOKEN_TTL_SEC: '900' }));
    adminToken = (await enrollAndSignIn(app, admin)).accessToken;
  });
  afterAll(async () => {
    await app?.close();
    await infra?.stop();
  });

  const challenge = async (pubkey: string) =>
    (await app.inject({ url: `/auth/challenge?pubkey=${pubkey}` })).json() as { nonce: string; message: string };

  it('enrolls, signs a challenge with a real key, and reaches /me with the access token', async () => {
    const key = newKey();
    const enroll = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS },
    });
    expect(enroll.statusCode).toBe(200);
    expect(enroll.json().user.pubkey).toBe(key.pubkey);
    const c = await challenge(key.pubkey);
    expect(c.message).toBe(`reglab-wallet-server:login:${c.nonce}`);
    const verify = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { pubkey: key.pubkey, nonce: c.nonce, signature: await signNonce(key.secretKey, c.nonce) },
    });
    expect(verify.statusCode).toBe(200);
    const tokens = verify.json();
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    const me = await as(app, tokens.access_token)({ url: '/me' });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      user: { pubkey: key.pubkey, is_admin: false },
      credential: { type: 'access_token', scope: 'full' },
    });
  });

  it('takes compact signatures only: a DER-length signature is a 400, a recovered one too', async () => {
    const key = newKey();
    await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS },
    });
    const { nonce } = await challenge(key.pubkey);
    const recovered = Buffer.from(
      await signAsync(Buffer.from(loginMessage(nonce)), key.secretKey, { format: 'recovered' }),
    ).toString('hex');
    const res = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { pubkey: key.pubkey, nonce, signature: recovered },
    });
    expect(res.statusCode).toBe(400);
    const derLike = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { pubkey: key.pubkey, nonce, signature: `30${'44'.repeat(70)}` },
    });
    expect(derLike.statusCode).toBe(400);
    expect(derLike.json().error.message).toMatch(/signature/);
  });

  it('refuses a second enrollment with 409 and bad enrollments with 400', async () => {
    const key = newKey();
    const body = { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS };
    expect((await app.inject({ method: 'POST', url: '/auth/enroll', payload: body })).statusCode).toBe(200);
    const again = await app.inject({ method: 'POST', url: '/auth/enroll', payload: body });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('ALREADY_ENROLLED');
    const mainnet = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: newKey().pubkey, bitcoin_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
    });
    expect(mainnet.statusCode).toBe(400);
    expect(mainnet.json().error.code).toBe('INVALID_ADDRESS');
    const taproot = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: {
        pubkey: newKey().pubkey,
        bitcoin_address: 'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6',
      },
    });
    expect(taproot.statusCode).toBe(200);
    const notOnCurve = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: `02${'f'.repeat(64)}`, bitcoin_address: REGTEST_ADDRESS },
    });
    expect(notOnCurve.statusCode).toBe(400);
    const uncompressed = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: `04${'a'.repeat(128)}`, bitcoin_address: REGTEST_ADDRESS },
    });
    expect(uncompressed.statusCode).toBe(400);
    expect(uncompressed.json().error.message).toMatch(/pubkey/);
  });

  it('answers 404 for an unknown user and 400 for a malformed pubkey on /auth/challenge', async () => {
    expect((await app.inject({ url: `/auth/challenge?pubkey=${newKey().pubkey}` })).statusCode).toBe(404);
    expect((await app.inject({ url: '/auth/challenge?pubkey=zz' })).statusCode).toBe(400);
    expect((await app.inject({ url: '/auth/challenge' })).statusCode).toBe(400);
  });

  it('rejects a replayed nonce, a wrong signer and an invented nonce with 401', async () => {
    const key = newKey();
    await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS },
    });
    const { nonce } = await challenge(key.pubkey);
    const payload = { pubkey: key.pubkey, nonce, signature: await signNonce(key.secretKey, nonce) };
    const attacker = newKey();
    const forged = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { ...payload, signature: await signNonce(attacker.secretKey, nonce) },
    });
    expect(forged.statusCode).toBe(401);
    // the forged attempt did not burn the nonce: the owner still signs in once, then never again
    expect((await app.inject({ method: 'POST', url: '/auth/verify', payload })).statusCode).toBe(200);
    const replay = await app.inject({ method: 'POST', url: '/auth/verify', payload });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error.code).toBe('SIGN_IN_FAILED');
    const invented = 'ab'.repeat(32);
    const made = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { pubkey: key.pubkey, nonce: invented, signature: await signNonce(key.secretKey, invented) },
    });
    expect(made.statusCode).toBe(401);
    const malformed = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { pubkey: key.pubkey, nonce, signature: 'not-hex' },
    });
    expect(malformed.statusCode).toBe(400);
  });

  it('expires a nonce after its TTL', async () => {
    const { app: shortApp } = await appOn(infra, { NONCE_TTL_SEC: '1' });
    try {
      const key = newKey();
      await shortApp.inject({
        method: 'POST',
        url: '/auth/enroll',
        payload: { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS },
      });
      const { nonce } = (await shortApp.inject({ url: `/auth/challenge?pubkey=${key.pubkey}` })).json();
      // a verify would spend the nonce, so its expiry is watched where it is kept: Redis ends it
      const stored = `ws:nonce:${key.pubkey}:${nonce}`;
      const ttlMs = await shortApp.redis.pttl(stored);
      expect(ttlMs).toBeGreaterThan(0);
      expect(ttlMs).toBeLessThanOrEqual(1_000);
      await waitFor(async () => (await shortApp.redis.exists(stored)) === 0, {
        timeoutMs: 10_000,
        what: 'Redis to expire the nonce',
      });
      const late = await shortApp.inject({
        method: 'POST',
        url: '/auth/verify',
        payload: { pubkey: key.pubkey, nonce, signature: await signNonce(key.secretKey, nonce) },
      });
      expect(late.statusCode).toBe(401);
      expect(late.json().error.code).toBe('SIGN_IN_FAILED');
    } finally {
      await shortApp.close();
    }
  });

  it('rotates refresh tokens: the new one works once, the old one is 401', async () => {
    const user = await enrollAndSignIn(app);
    const first = await app.inject({
      method: 'POST',
      url: '/auth/refresh',
      payload: { refresh_token: user.refreshToken },
    });
    expect(first.statusCode).toBe(200);
    const rotated = first.json();
    expect(rotated.refresh_token).not.toBe(user.refreshToken);
    expect((await as(app, rotated.access_token)({ url: '/me' })).statusCode).toBe(200);
    const reuse = await app.inject({
      method: 'POST',
      url: '/auth/refresh',
      payload: { refresh_token: user.refreshToken },
    });
    expect(reuse.statusCode).toBe(401);
    expect(
      (await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: rotated.refresh_token } }))
        .statusCode,
    ).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/auth/refresh', payload: {} })).statusCode).toBe(400);
  });

  it('logout revokes the refresh token and the session access token', async () => {
    const user = await enrollAndSignIn(app);
    const out = await app.inject({
      method: 'POST',
      url: '/auth/logout',
      payload: { refresh_token: user.refreshToken },
    });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ revoked: true });
    expect(
      (await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: user.refreshToken } }))
        .statusCode,
    ).toBe(401);
    const me = await as(app, user.accessToken)({ url: '/me' });
    expect(me.statusCode).toBe(401);
    expect(me.json().error.code).toBe('SESSION_ENDED');
    expect(
      (await app.inject({ method: 'POST', url: '/auth/logout', payload: { refresh_token: user.refreshToken } })).json(),
    ).toEqual({ revoked: false });
  });

  it('rejects missing, tampered and foreign-secret tokens with 401', async () => {
    const user = await enrollAndSignIn(app);
    expect((await app.inject({ url: '/me' })).statusCode).toBe(401);
    const [h, p, s] = user.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 99999 })).toString('base64url')}.${s}`;
    expect((await as(app, tampered)({ url: '/me' })).statusCode).toBe(401);
    const { app: other } = await appOn(infra);
    try {
      const foreign = await enrollAndSignIn(other);
      expect((await as(app, foreign.accessToken)({ url: '/me' })).statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });

  it("answers 401 to a well-signed token whose user is not in this server's database, on every route, and stores nothing", async () => {
    // two servers sharing TOKEN_SECRET and Redis, each on its own database: a session of one is alive for the other
    const shared = { TOKEN_SECRET: 'one secret for two databases' };
    const { app: here } = await appOn(infra, shared);
    const { app: elsewhere } = await appOn(infra, shared);
    try {
      const stranger = await enrollAndSignIn(elsewhere);
      const call = as(here, stranger.accessToken);
      for (const req of [
        { url: '/me' },
        { url: '/wallets' },
        { method: 'POST' as const, url: '/wallets', payload: { name: 'ghost' } },
        { method: 'POST' as const, url: '/auth/api-keys', payload: { name: 'ghost' } },
        { method: 'DELETE' as const, url: '/auth/api-keys/00000000-0000-7000-8000-000000000000' },
      ]) {
        const res = await call(req);
        expect(res.statusCode, `${req.method ?? 'GET'} ${req.url}: ${res.body}`).toBe(401);
        expect(res.json().error).toMatchObject({
          code: 'UNKNOWN_USER',
          message: expect.stringMatching(/sign in again/),
        });
      }
      const stored = await here.db.query<{ wallets: string; keys: string }>(
        'select (select count(*) from wallets)::text as wallets, (select count(*) from api_keys)::text as keys',
      );
      expect(stored.rows[0]).toEqual({ wallets: '0', keys: '0' });
      expect((await as(elsewhere, stranger.accessToken)({ url: '/me' })).statusCode).toBe(200);
    } finally {
      await Promise.all([here.close(), elsewhere.close()]);
    }
  });

  it('lets only ADMIN_PUBKEYS reach /admin/*', async () => {
    const user = await enrollAndSignIn(app);
    expect((await as(app, user.accessToken)({ url: '/admin/me' })).statusCode).toBe(403);
    expect((await as(app, user.accessToken)({ url: '/admin/audit' })).statusCode).toBe(403);
    expect((await app.inject({ url: '/admin/me' })).statusCode).toBe(401);
    const me = await as(app, adminToken)({ url: '/admin/me' });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ pubkey: admin.pubkey, is_admin: true });
  });

  it('lists sign-ins and enrollments in the admin audit log with cursor paging', async () => {
    const victim = await enrollAndSignIn(app);
    const { nonce } = await challenge(victim.pubkey);
    await app.inject({
      method: 'POST',
      url: '/auth/verify',
      payload: { pubkey: victim.pubkey, nonce, signature: await signNonce(newKey().secretKey, nonce) },
    });
    const call = as(app, adminToken);
    const first = await call({ url: '/admin/audit?limit=3' });
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.items).toHaveLength(3);
    expect(page1.next_before).toBe(page1.items[2].id);
    const page2 = (await call({ url: `/admin/audit?limit=3&before=${page1.next_before}` })).json();
    expect(page2.items[0].id < page1.items[2].id).toBe(true);
    const all = (await call({ url: '/admin/audit?limit=200' })).json().items as Array<{ action: string; id: string }>;
    expect(all.map((i) => i.action)).toEqual(
      expect.arrayContaining(['user.enrolled', 'auth.signed_in', 'auth.sign_in_failed']),
    );
    expect(all.map((i) => i.id)).toEqual([...all.map((i) => i.id)].sort().reverse());
    const tooMany = await call({ url: '/admin/audit?limit=201' });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toMatch(/200/);
  });
});
