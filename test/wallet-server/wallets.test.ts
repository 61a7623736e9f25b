import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { waitFor } from '../../lib/wait.js';
import { appOn, as, createWallet, enrollAndSignIn, fund, startInfra, type Infra, type TestUser } from './support.js';

describe('wallet-server wallets and API keys', () => {
  let infra: Infra;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    infra = await startInfra();
    ({ app } = await appOn(infra));
    [alice, mallory] = [await enrollAndSignIn(app), await enrollAndSignIn(app)];
  });
  afterAll(async () => {
    await app?.close();
    await infra?.stop();
  });

  const apiKey = async (token: string, body: Record<string, unknown>) => {
    const res = await as(app, token)({ method: 'POST', url: '/auth/api-keys', payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; api_key: string; scope: string };
  };

  it('creates, lists, reads and renames wallets', async () => {
    const call = as(app, alice.accessToken);
    const created = await call({
      method: 'POST',
      url: '/wallets',
      payload: { name: 'spending', metadata: { color: 'red' } },
    });
    expect(created.statusCode).toBe(200);
    const w = created.json();
    expect(w).toMatchObject({
      name: 'spending',
      metadata: { color: 'red' },
      archived: false,
      balance_msat: '0',
      assets: [],
    });
    expect((await call({ url: `/wallets/${w.id}` })).json().name).toBe('spending');
    const renamed = await call({ method: 'PATCH', url: `/wallets/${w.id}`, payload: { name: 'daily' } });
    expect(renamed.json()).toMatchObject({ name: 'daily', metadata: { color: 'red' } });
    const list = (await call({ url: '/wallets' })).json().wallets as Array<{ id: string }>;
    expect(list.map((x) => x.id)).toContain(w.id);
    expect((await call({ method: 'POST', url: '/wallets', payload: { name: '' } })).statusCode).toBe(400);
    expect((await call({ method: 'POST', url: '/wallets', payload: {} })).statusCode).toBe(400);
  });

  it('archives only a zero-balance wallet and hides it from the list unless include_archived', async () => {
    const call = as(app, alice.accessToken);
    const rich = await createWallet(app, alice.accessToken, 'rich');
    await fund(app, rich, 0n, { assetId: 'rgb:asset-1', amount: 5n });
    const refused = await call({ method: 'DELETE', url: `/wallets/${rich}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('BALANCE_NOT_ZERO');
    expect(refused.json().error.message).toMatch(/rgb:asset-1/);
    const paying = await createWallet(app, alice.accessToken, 'paying');
    await fund(app, paying, 1_000n);
    const pending = await app.ledger.reserveOutgoing({
      walletId: paying,
      kind: 'keysend',
      amountMsat: 900n,
      feeLimitMsat: 100n,
    });
    const whilePending = await call({ method: 'DELETE', url: `/wallets/${paying}` });
    expect(whilePending.statusCode).toBe(400);
    expect(whilePending.json().error.code).toBe('PAYMENTS_PENDING');
    await app.ledger.settleOutgoing(pending.id, { feeMsat: 100n });
    expect((await call({ method: 'DELETE', url: `/wallets/${paying}` })).statusCode).toBe(200);
    const empty = await createWallet(app, alice.accessToken, 'empty');
    const archived = await call({ method: 'DELETE', url: `/wallets/${empty}` });
    expect(archived.statusCode).toBe(200);
    expect(archived.json().archived).toBe(true);
    const ids = (q: string) =>
      call({ url: `/wallets${q}` }).then((r) => (r.json().wallets as Array<{ id: string }>).map((x) => x.id));
    expect(await ids('')).not.toContain(empty);
    expect(await ids('?include_archived=true')).toContain(empty);
    const into = await call({
      method: 'POST',
      url: '/payments/internal',
      payload: {
        from_wallet_id: rich,
        to_wallet_id: empty,
        asset_kind: 'rgb',
        asset_id: 'rgb:asset-1',
        asset_amount: '1',
      },
    });
    expect(into.statusCode).toBe(400);
    expect(into.json().error.code).toBe('WALLET_ARCHIVED');
  });

  it("answers 404 for another user's wallet on every route and changes nothing", async () => {
    const victim = await createWallet(app, alice.accessToken, 'victim');
    await fund(app, victim, 10_000n);
    const own = await createWallet(app, mallory.accessToken, 'mine');
    const call = as(app, mallory.accessToken);
    for (const req of [
      { url: `/wallets/${victim}` },
      { method: 'PATCH' as const, url: `/wallets/${victim}`, payload: { name: 'pwned' } },
      { method: 'DELETE' as const, url: `/wallets/${victim}` },
      { url: `/wallets/${victim}/transactions` },
      {
        method: 'POST' as const,
        url: '/payments/internal',
        payload: { from_wallet_id: victim, to_wallet_id: own, asset_kind: 'btc', amount_msat: 1000 },
      },
      {
        method: 'POST' as const,
        url: '/payments/internal',
        payload: { from_wallet_id: own, to_wallet_id: victim, asset_kind: 'btc', amount_msat: 1 },
      },
      { url: '/wallets/not-a-uuid' },
    ]) {
      const res = await call(req);
      expect(res.statusCode, `${req.method ?? 'GET'} ${req.url}`).toBe(404);
    }
    const wallet = (await as(app, alice.accessToken)({ url: `/wallets/${victim}` })).json();
    expect(wallet).toMatchObject({ name: 'victim', balance_msat: '10000', archived: false });
    const theirs = (await call({ url: '/wallets' })).json().wallets as Array<{ id: string }>;
    expect(theirs.map((w) => w.id)).toEqual([own]);
    // through the wallet-key header, someone else's wallet is a rejected credential (for an access
    // token the header's wallet is looked up with the user, in one query), also once the server has
    // found it to be alice's and remembers that
    const aliceViaHeader = await as(
      app,
      alice.accessToken,
      victim,
    )({ url: `/payments/00000000-0000-7000-8000-000000000000` });
    expect(aliceViaHeader.statusCode, 'alice passes the header check: the payment is what is missing').toBe(404);
    const viaHeader = await as(
      app,
      mallory.accessToken,
      victim,
    )({ url: `/payments/00000000-0000-7000-8000-000000000000` });
    expect(viaHeader.statusCode).toBe(401);
    expect(viaHeader.json().error.code).toBe('WALLET_KEY_REJECTED');
    const ownViaHeader = await as(
      app,
      mallory.accessToken,
      own,
    )({ url: `/payments/00000000-0000-7000-8000-000000000000` });
    expect(ownViaHeader.statusCode, 'her own wallet passes the header check: the payment is what is missing').toBe(404);
  });

  it('enforces API key scopes: read is GET only, invoice cannot move funds, full can', async () => {
    const a = await createWallet(app, alice.accessToken, 'a');
    const b = await createWallet(app, alice.accessToken, 'b');
    await fund(app, a, 5_000n);
    const transfer = {
      method: 'POST' as const,
      url: '/payments/internal',
      payload: { from_wallet_id: a, to_wallet_id: b, asset_kind: 'btc', amount_msat: 1000 },
    };
    const read = await apiKey(alice.accessToken, { name: 'ro', scope: 'read' });
    expect((await as(app, read.api_key)({ url: `/wallets/${a}` })).statusCode).toBe(200);
    const denied = await as(app, read.api_key)(transfer);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await as(app, read.api_key)({ method: 'POST', url: '/wallets', payload: { name: 'x' } })).statusCode).toBe(
      403,
    );
    expect(
      (
        await as(
          app,
          read.api_key,
        )({ method: 'POST', url: '/auth/api-keys', payload: { name: 'escalate', scope: 'full' } })
      ).statusCode,
    ).toBe(403);
    const invoice = await apiKey(alice.accessToken, { name: 'inv', scope: 'invoice' });
    expect((await as(app, invoice.api_key)(transfer)).statusCode).toBe(403);
    const full = await apiKey(alice.accessToken, { name: 'all' });
    expect(full.scope).toBe('full');
    expect((await as(app, full.api_key)(transfer)).statusCode).toBe(200);
    expect((await as(app, alice.accessToken)({ url: `/wallets/${a}` })).json().balance_msat).toBe('4000');
    const revokedFull = (
      await as(app, alice.accessToken)({ method: 'DELETE', url: `/auth/api-keys/${full.id}` })
    ).json();
    expect(revokedFull.last_used_at).toBeTruthy();
    const me = (await as(app, invoice.api_key)({ url: '/me' })).json();
    expect(me.credential).toMatchObject({ type: 'api_key', scope: 'invoice', api_key_id: invoice.id });
  });

  it('restricts a wallet-bound key to its wallet', async () => {
    const a = await createWallet(app, alice.accessToken, 'bound');
    const other = await createWallet(app, alice.accessToken, 'other');
    const key = await apiKey(alice.accessToken, { name: 'bound', wallet_id: a });
    const call = as(app, key.api_key);
    expect((await call({ url: `/wallets/${a}` })).statusCode).toBe(200);
    expect((await call({ url: `/wallets/${other}` })).statusCode).toBe(404);
    expect((await call({ url: '/wallets' })).json().wallets.map((w: { id: string }) => w.id)).toEqual([a]);
    expect(
      (await as(app, key.api_key, other)({ url: '/payments/00000000-0000-7000-8000-000000000000' })).statusCode,
    ).toBe(401);
    expect((await as(app, key.api_key, a)({ url: '/payments/00000000-0000-7000-8000-000000000000' })).statusCode).toBe(
      404,
    );
    expect((await call({ method: 'POST', url: '/wallets', payload: { name: 'nope' } })).statusCode).toBe(403);
    const foreign = await createWallet(app, mallory.accessToken, 'm');
    const bad = await as(
      app,
      alice.accessToken,
    )({ method: 'POST', url: '/auth/api-keys', payload: { name: 'x', wallet_id: foreign } });
    expect(bad.statusCode).toBe(400);
  });

  it('lets a wallet-bound key revoke only itself', async () => {
    const bound = await createWallet(app, alice.accessToken, 'bound-revoker');
    const unrestricted = await apiKey(alice.accessToken, { name: 'unrestricted' });
    const sibling = await apiKey(alice.accessToken, { name: 'sibling', wallet_id: bound });
    const key = await apiKey(alice.accessToken, { name: 'bound-full', wallet_id: bound });
    for (const other of [unrestricted, sibling]) {
      const res = await as(app, key.api_key)({ method: 'DELETE', url: `/auth/api-keys/${other.id}` });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error.code).toBe('KEY_RESTRICTED_TO_WALLET');
      expect((await as(app, other.api_key)({ url: '/me' })).statusCode).toBe(200);
    }
    const self = await as(app, key.api_key)({ method: 'DELETE', url: `/auth/api-keys/${key.id}` });
    expect(self.statusCode).toBe(200);
    expect((await as(app, key.api_key)({ url: '/me' })).statusCode).toBe(401);
  });

  it('bounds wallet metadata: too deep or too large is a 400 and stores nothing', async () => {
    // as raw JSON text: a client sends it so, and stringifying it here would overflow this stack
    const deep = `${'{"d":'.repeat(5_000)}"bottom"${'}'.repeat(5_000)}`;
    const json = { 'content-type': 'application/json' };
    const call = as(app, alice.accessToken);
    const before = (await call({ url: '/wallets' })).json().wallets.length;
    const created = await call({
      method: 'POST',
      url: '/wallets',
      headers: json,
      payload: `{"name":"deep","metadata":${deep}}`,
    });
    expect(created.statusCode, created.body).toBe(400);
    expect(created.json().error.code).toBe('METADATA_TOO_DEEP');
    const big = await call({
      method: 'POST',
      url: '/wallets',
      payload: { name: 'big', metadata: { blob: 'x'.repeat(20_000) } },
    });
    expect(big.statusCode).toBe(400);
    expect(big.json().error.code).toBe('METADATA_TOO_LARGE');
    expect((await call({ url: '/wallets' })).json().wallets.length).toBe(before);

    const w = await createWallet(app, alice.accessToken, 'shallow');
    const patched = await call({
      method: 'PATCH',
      url: `/wallets/${w}`,
      headers: json,
      payload: `{"metadata":[[[[${deep}]]]]}`,
    });
    expect(patched.statusCode).toBe(400);
    let nested: unknown = 1;
    for (let i = 0; i < 32; i++) nested = [nested];
    const ok = await call({ method: 'PATCH', url: `/wallets/${w}`, payload: { metadata: nested } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().metadata).toEqual(nested);
  });

  it('refuses revoked and expired keys with 401; revoking unknown or foreign keys is 404', async () => {
    const key = await apiKey(alice.accessToken, { name: 'temp', scope: 'read' });
    expect((await as(app, key.api_key)({ url: '/wallets' })).statusCode).toBe(200);
    expect((await as(app, mallory.accessToken)({ method: 'DELETE', url: `/auth/api-keys/${key.id}` })).statusCode).toBe(
      404,
    );
    expect(
      (
        await as(
          app,
          alice.accessToken,
        )({ method: 'DELETE', url: '/auth/api-keys/00000000-0000-7000-8000-000000000000' })
      ).statusCode,
    ).toBe(404);
    const revoked = await as(app, alice.accessToken)({ method: 'DELETE', url: `/auth/api-keys/${key.id}` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revoked_at).toBeTruthy();
    const after = await as(app, key.api_key)({ url: '/wallets' });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('INVALID_API_KEY');

    const expiresAt = Date.now() + 3_000;
    const soon = await apiKey(alice.accessToken, { name: 'soon', expires_at: new Date(expiresAt).toISOString() });
    expect((await as(app, soon.api_key)({ url: '/wallets' })).statusCode).toBe(200);
    const expired = await waitFor(
      async () => {
        const res = await as(app, soon.api_key)({ url: '/wallets' });
        return res.statusCode === 401 && res;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'the API key to expire' },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(expired.json().error.code).toBe('INVALID_API_KEY');
    const past = await as(
      app,
      alice.accessToken,
    )({ method: 'POST', url: '/auth/api-keys', payload: { name: 'p', expires_at: '2000-01-01T00:00:00Z' } });
    expect(past.statusCode).toBe(400);
    const badScope = await as(
      app,
      alice.accessToken,
    )({ method: 'POST', url: '/auth/api-keys', payload: { name: 'p', scope: 'admin' } });
    expect(badScope.statusCode).toBe(400);
    expect((await as(app, `rlk_${'a'.repeat(64)}`)({ url: '/wallets' })).statusCode).toBe(401);
  });

  it('takes bodies strictly: an unknown field or a value of another type is a 400 naming it, and changes nothing', async () => {
    const call = as(app, alice.accessToken);
    const a = await createWallet(app, alice.accessToken, 'strict-a');
    const b = await createWallet(app, alice.accessToken, 'strict-b');
    await fund(app, a, 5_000n);
    const cases: [string, string, Record<string, unknown>, RegExp][] = [
      ['POST', '/wallets', { name: 'x', colour: 'red' }, /unknown field "colour"/],
      ['POST', '/wallets', { name: 5 }, /name must be string/],
      ['PATCH', `/wallets/${a}`, { name: 'y', archived: true }, /unknown field "archived"/],
      [
        'POST',
        '/payments/internal',
        { from_wallet_id: a, to_wallet_id: b, asset_kind: 'btc', amount_msat: 1000, fee_msat: 0 },
        /unknown field "fee_msat"/,
      ],
      [
        'POST',
        '/payments/internal',
        { from_wallet_id: a, to_wallet_id: b, asset_kind: 'btc', amount_msat: true },
        /amount_msat/,
      ],
      ['POST', '/auth/api-keys', { name: 'k', scope: 'read', admin: true }, /unknown field "admin"/],
      ['POST', '/auth/refresh', { refresh_token: alice.refreshToken, extra: 1 }, /unknown field "extra"/],
    ];
    for (const [method, url, payload, reason] of cases) {
      const res = await call({ method: method as 'POST', url, payload });
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(reason) });
    }
    const enroll = await app.inject({
      method: 'POST',
      url: '/auth/enroll',
      payload: {
        pubkey: alice.pubkey,
        bitcoin_address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
        is_admin: true,
      },
    });
    expect(enroll.statusCode).toBe(400);
    expect(await app.ledger.btcBalanceMsat(a)).toBe(5_000n);
    expect((await call({ url: `/wallets/${a}` })).json()).toMatchObject({ name: 'strict-a', archived: false });
  });

  it('answers unknown routes and bad JSON with the JSON error shape', async () => {
    const unknown = await app.inject({ url: '/nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('NOT_FOUND');
    const badJson = await as(
      app,
      alice.accessToken,
    )({ method: 'POST', url: '/wallets', payload: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error.code).toBe('INVALID_JSON');
    const text = await as(
      app,
      alice.accessToken,
    )({ method: 'POST', url: '/wallets', payload: '<name>x</name>', headers: { 'content-type': 'application/xml' } });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('serves its OpenAPI document and docs page', async () => {
    const doc = await app.inject({ url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json().paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/auth/enroll',
        '/wallets/{id}/transactions',
        '/payments/internal',
        '/admin/audit',
        '/health',
      ]),
    );
    expect(doc.json().paths['/wallets'].get.security).toEqual([{ bearerAuth: [] }]);
    expect((await app.inject({ url: '/docs' })).statusCode).toBe(200);
    for (const [path, ops] of Object.entries(
      doc.json().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    )) {
      for (const [method, op] of Object.entries(ops))
        expect(Object.keys(op.responses), `${method} ${path}`).toContain('200');
    }
  });

  it('reports checks registered by other parts on /health', async () => {
    app.health.register('test-node', async () => ({ height: 101 }));
    expect((await app.inject({ url: '/health' })).json()).toMatchObject({
      status: 'ok',
      checks: { 'test-node': { ok: true, details: { height: 101 } } },
    });
    app.health.register('test-node', async () => {
      throw new Error('node unreachable');
    });
    const degraded = await app.inject({ url: '/health' });
    expect(degraded.statusCode).toBe(502);
    expect(degraded.json()).toMatchObject({
      status: 'degraded',
      checks: { 'test-node': { ok: false, error: 'node unreachable' }, postgres: { ok: true } },
    });
  });
});
