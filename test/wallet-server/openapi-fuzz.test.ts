// Schema fuzz of the wallet server's own OpenAPI document, run as an attacker would: for every
// operation in GET /openapi.json, a bounded number of generated requests (valid-shaped bodies with
// boundary values, wrong types, missing and extra fields, huge and negative numbers, empty, long and
// unicode strings, malformed ids in the path, bad query values, wrong content types, non-JSON
// bodies), unauthenticated, with a garbage token and with the bearer token of a signed-in user (and
// the wallet-key header of that user's wallet where the operation declares one; /admin routes also
// as an admin). Every answer must be below 500, every 4xx the JSON error body
// { error: { code, message } }, a protected route without valid credentials a 401 whatever the
// request, and afterwards nothing of another user (the victim) may have changed or become visible,
// and the attacker's own balance did not move.
// Over HTTP, against the wallet server of the shared default-shaped lab (test/support/shared-lab.ts)
// as the lab runs it, on alice's lnd: the users' wallets are funded by payments from bob. The
// generator is a seeded PRNG, so a failure replays with the same FUZZ_SEED.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';
import { walletServerToken } from '../support/wallet-server-user.js';
import { newKey } from './support.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const PER_OPERATION = Number(process.env.FUZZ_PER_OPERATION ?? 60);

// --- deterministic generator (mulberry32) ---------------------------------------------------------

function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => next() < p;
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
  return { next, int, pick, chance, hex, uuid };
}
type Rng = ReturnType<typeof prng>;

// --- the OpenAPI document --------------------------------------------------------------------------

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string; // OpenAPI template, e.g. /wallets/{id}
  parameters: Parameter[];
  body?: Schema;
  secured: boolean;
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])],
        body: op.requestBody?.content?.['application/json']?.schema,
        secured: Array.isArray(op.security) && op.security.length > 0,
      });
    }
  }
  return ops;
}

// --- values ----------------------------------------------------------------------------------------

const LONG = 'A'.repeat(100_000);
const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n',
  '0',
  '-1',
  '1e3',
  '0x10',
  ' 1',
  '1.5',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999999999',
  '-9223372036854775809',
  '00000000000000000001',
  'A'.repeat(300),
  LONG,
  'é',
  '😀🧨',
  '\u0000',
  'a\u0000b',
  '\u202eevil',
  'Ω≈ç√∫',
  '𝕳𝖊𝖑𝖑𝖔',
  '\ud800',
  "' OR 1=1 --",
  '"; drop table wallets; --',
  '../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '<script>alert(1)</script>',
  '${7*7}',
  '__proto__',
  'constructor',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-0000-0000-000000000000',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  '0'.repeat(64),
  'g'.repeat(64),
  'f'.repeat(63),
  'F'.repeat(66),
  `02${'0'.repeat(64)}`,
  `03${'f'.repeat(64)}`,
  'lnbcrt1',
  'lnbcrt10u1garbage',
  `LNBC1${'q'.repeat(200)}`,
  'rgb:abc',
  'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
  '2026-13-45T99:99:99Z',
  '1970-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '-000001-01-01T00:00:00Z',
];
const NASTY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1e-300,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64,
  -(2 ** 63),
  1e21,
  1e308,
  -1e308,
];
// Raw JSON literals that JSON.stringify cannot make (numbers beyond double precision, etc.).
const RAW_NUMBERS = [
  '9223372036854775808',
  '99999999999999999999999999999999',
  '-99999999999999999999999',
  '1e400',
  '-1e400',
  '1.0',
  '1e2',
  '0.0000001',
  '-0',
];

function nasty(rng: Rng): unknown {
  switch (rng.int(7)) {
    case 0:
    case 1:
      return rng.pick(NASTY_STRINGS);
    case 2:
    case 3:
      return rng.pick(NASTY_NUMBERS);
    case 4:
      return rng.pick([true, false, null]);
    case 5:
      return rng.pick([[], [1], ['a'], {}, { a: 1 }, { __proto__: { admin: true } }, [[[[[]]]]]]);
    default:
      return { $raw: rng.pick(RAW_NUMBERS) };
  }
}

/** A value that fits the schema, leaning on its boundaries. */
function valid(rng: Rng, schema: Schema | undefined, ctx: Ctx, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.anyOf || schema.oneOf) return valid(rng, rng.pick(schema.anyOf ?? schema.oneOf), ctx, depth + 1);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return rng.chance(0.5);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (rng.chance(0.5) ? 0 : -1000);
      const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
      return rng.pick(
        [
          min,
          max,
          min + 1,
          Math.max(min, max - 1),
          Math.floor(min + rng.next() * Math.min(max - min, 1e9)),
          1000,
          3_000_000,
        ].filter((n) => n >= min && n <= max),
      );
    }
    case 'string':
      return validString(rng, schema, ctx);
    case 'array':
      return Array.from({ length: rng.int(3) }, () => valid(rng, schema.items, ctx, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [k, s] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(k) || rng.chance(0.6)) out[k] = valid(rng, s, ctx, depth + 1);
      }
      return out;
    }
  }
}

function validString(rng: Rng, schema: Schema, ctx: Ctx): string {
  if (schema.format === 'uuid')
    return rng.pick([...ctx.walletIds(), rng.uuid(), '00000000-0000-0000-0000-000000000000']);
  if (schema.format === 'date-time')
    return rng.pick([new Date(Date.now() + 86_400_000).toISOString(), '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z']);
  const pattern: string | undefined = schema.pattern;
  if (pattern) {
    if (pattern.includes('0-9]{1,19}'))
      return rng.pick(['0', '1', '9223372036854775807', '9223372036854775808', '9999999999999999999', '3000000']);
    if (pattern.includes('{64}')) return rng.hex(64);
    if (pattern.includes('{66}') || pattern.includes('02|03') || pattern.includes('0[23]'))
      return rng.pick(['02', '03']) + rng.hex(64);
  }
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 64, 5000);
  const len = rng.pick([min, max, Math.max(min, 1), Math.floor(min + rng.next() * (max - min))]);
  const alphabet = rng.pick(['abcdefghijklmnopqrstuvwxyz0123456789', 'é😀Ω', 'ABC_-.~ ', '\u0000\u202e\ud800']);
  return Array.from({ length: len }, () => alphabet[rng.int(alphabet.length)])
    .join('')
    .slice(0, max);
}

/** A valid-shaped object with one field broken in some way (wrong type, missing, extra, extreme). */
function mutate(rng: Rng, schema: Schema | undefined, ctx: Ctx): unknown {
  const base = valid(rng, schema, ctx);
  if (!base || typeof base !== 'object' || Array.isArray(base)) return rng.chance(0.5) ? nasty(rng) : base;
  const obj = base as Record<string, unknown>;
  const props = Object.keys(schema?.properties ?? {});
  const required: string[] = schema?.required ?? [];
  switch (rng.int(5)) {
    case 0:
      if (required.length) delete obj[rng.pick(required)];
      break; // missing required
    case 1:
      obj[
        rng.pick([
          'admin',
          'user_id',
          'balance',
          'owner_id',
          '__proto__',
          'constructor',
          'id',
          'wallet_id',
          'x'.repeat(500),
        ])
      ] = nasty(rng);
      break; // extra field
    case 2:
      for (const k of props) if (rng.chance(0.5)) obj[k] = nasty(rng);
      break; // several broken
    default:
      if (props.length) obj[rng.pick(props)] = nasty(rng); // one broken
  }
  return obj;
}

/** JSON text of a value; { $raw } objects become raw literals (e.g. numbers beyond int64). */
function toJson(value: unknown): string {
  const raws: string[] = [];
  const text =
    JSON.stringify(value, (_k, v) => {
      if (
        v &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        typeof v.$raw === 'string' &&
        Object.keys(v).length === 1
      ) {
        raws.push(v.$raw);
        return `@@RAW${raws.length - 1}@@`;
      }
      return v;
    }) ?? 'null';
  return text.replace(/"@@RAW(\d+)@@"/g, (_m, i) => raws[Number(i)]!);
}

// --- requests --------------------------------------------------------------------------------------

interface Ctx {
  walletIds(): string[]; // ids worth trying in paths and bodies: the victim's and the attacker's
  victimWallet: string;
  attackerWallet: string;
  username: string;
}

const BAD_PATH_VALUES = [
  'x',
  '0',
  '-1',
  'null',
  'undefined',
  '00000000-0000-0000-0000-00000000000g',
  '{id}',
  ':id',
  'A'.repeat(2000),
  '%00',
  '%2F..%2F',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%ZZ',
  "'%20OR%201=1",
  '1%3Bselect%201',
  'ffffffffffffffffffffffffffffffff',
  '0'.repeat(64),
  'g'.repeat(64),
  '9223372036854775808',
];

function pathValue(rng: Rng, name: string, ctx: Ctx, mutating: boolean): string {
  const r = rng.int(10);
  if (r < 4) return rng.pick(BAD_PATH_VALUES);
  if (r < 6) return rng.uuid();
  if (name === 'hash') return rng.pick([rng.hex(64), rng.hex(64).toUpperCase(), rng.hex(63)]);
  if (name === 'username') return rng.pick([ctx.username, ctx.username.toUpperCase(), 'nobody', 'a'.repeat(200)]);
  // Another user's wallet; the attacker's own only for reads (writing to one's own wallet is legitimate).
  return mutating ? ctx.victimWallet : rng.pick([ctx.victimWallet, ctx.attackerWallet]);
}

function queryValue(rng: Rng, p: Parameter, ctx: Ctx): string {
  if (rng.chance(0.5)) return String(valid(rng, p.schema, ctx));
  const v = nasty(rng);
  return typeof v === 'string' ? v : toJson(v);
}

function buildRequest(
  rng: Rng,
  op: Operation,
  ctx: Ctx,
  tokens: { user: string; admin: string },
): FuzzRequest & { label: string; anonymous: boolean } {
  const mutating = op.method !== 'GET';
  let url = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v = pathValue(rng, name, ctx, mutating);
    return /%[0-9A-Fa-f]{2}|%ZZ/.test(v) ? v : encodeURIComponent(v);
  });
  const query = new URLSearchParams();
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    if (p.required || rng.chance(0.6)) query.append(p.name, queryValue(rng, p, ctx));
    if (rng.chance(0.1)) query.append(p.name, queryValue(rng, p, ctx)); // repeated parameter
  }
  if (rng.chance(0.1))
    query.append(rng.pick(['__proto__', 'limit[$gt]', 'x'.repeat(300), 'évil']), rng.pick(NASTY_STRINGS.slice(0, 40)));
  const qs = query.toString();
  if (qs) url += `?${qs}`;

  const headers: Record<string, string> = {};
  // Admin routes are also fuzzed as an admin (read-only routes), so their inputs are reached.
  const signedIn = op.path.startsWith('/admin/') ? ['user', 'admin', 'admin', 'admin'] : ['user'];
  const authMode = !op.secured
    ? rng.pick(['none', 'user'])
    : rng.pick(['none', 'garbage', ...signedIn, ...signedIn, ...signedIn]);
  if (authMode === 'user') headers.authorization = `Bearer ${tokens.user}`;
  if (authMode === 'admin') headers.authorization = `Bearer ${tokens.admin}`;
  if (authMode === 'garbage') {
    headers.authorization = rng.pick([
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      `Bearer ${'x'.repeat(5000)}`,
      'Bearer a.b.c',
      `Bearer wsk_${rng.hex(40)}`,
      `Bearer ${tokens.user}x`,
      `bearer  ${tokens.user.split('.').slice(0, 2).join('.')}.AAAA`,
    ]);
  }
  for (const h of op.parameters.filter((x) => x.in === 'header')) {
    const r = rng.int(10);
    if (r < 6) headers[h.name] = ctx.attackerWallet;
    else if (r < 8) headers[h.name] = rng.pick([ctx.victimWallet, rng.uuid()]);
    else if (r < 9)
      headers[h.name] = rng.pick([
        '',
        'x',
        'A'.repeat(3000),
        '00000000-0000-0000-0000-00000000000g',
        `${ctx.attackerWallet},${ctx.victimWallet}`,
      ]);
    // else: missing
  }

  let payload: string | undefined;
  let kind = 'no-body';
  if (op.body || (mutating && rng.chance(0.3))) {
    const r = rng.int(10);
    headers['content-type'] = 'application/json';
    if (r < 3) {
      kind = 'valid';
      payload = toJson(valid(rng, op.body, ctx));
    } else if (r < 7) {
      kind = 'mutated';
      payload = toJson(mutate(rng, op.body, ctx));
    } else if (r < 8) {
      kind = 'top-level';
      payload = toJson(rng.pick([[], 'x', 1, null, true, [valid(rng, op.body, ctx)]]));
    } else if (r < 9) {
      kind = 'non-json';
      payload = rng.pick([
        '{',
        '{"a":',
        "{'a':1}",
        'not json',
        '\u0000',
        '{"a":1}}',
        '[1,]',
        '',
        '{"a":1,"a":2}',
        `{"x":"${LONG}"}`,
        '\ufeff{}',
      ]);
    } else {
      kind = 'content-type';
      payload = toJson(valid(rng, op.body, ctx));
      headers['content-type'] = rng.pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/xml',
        'application/json, text/plain',
        '*/*',
        '',
      ]);
    }
  }
  return {
    method: op.method,
    url,
    headers,
    payload,
    anonymous: authMode === 'none' || authMode === 'garbage',
    label: `${op.method} ${op.path} [${authMode}, ${kind}] ${url.slice(0, 160)}`,
  };
}

// --- checks ----------------------------------------------------------------------------------------

function problemOf(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  mustBe401: boolean,
): string | null {
  if (res.statusCode >= 500) return `status ${res.statusCode}`;
  if (mustBe401 && res.statusCode !== 401 && !isRouterError(res))
    return `${res.statusCode} instead of 401 without valid credentials`;
  if (res.statusCode < 400) return null;
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `${res.statusCode} with content-type "${type}"`;
  let parsed: any;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    return `${res.statusCode} with a body that is not JSON`;
  }
  const e = parsed?.error;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || !e.code || !e.message)
    return `${res.statusCode} without { error: { code, message } }`;
  return null;
}

/** The router refuses a URL it cannot decode or a too long path parameter before any auth hook. */
function isRouterError(res: { statusCode: number; body: string }): boolean {
  return res.statusCode === 400 && /not a valid url component|PARAM_TOO_LONG/.test(res.body);
}

// --- the run ---------------------------------------------------------------------------------------

/** A request to the wallet server: its path (with the query), headers and raw body. */
interface FuzzRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  json(): any;
}

let lab: SharedLab;
/** The wallet server's base URL. */
let base: string;
let ledgerDb: pg.Client;
let victim: string;
let attacker: string;
let admin: string;
let victimWallets: string[] = [];
let attackerWallet: string;

async function send(request: FuzzRequest): Promise<Answer> {
  const response = await fetch(`${base}${request.url}`, {
    method: request.method,
    headers: request.headers,
    body: request.payload,
  });
  const body = await response.text();
  return {
    statusCode: response.status,
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
    body,
    json: () => JSON.parse(body),
  };
}

/** Requests as the holder of `token` (and with a wallet's key when given). */
function as(token: string, walletKey?: string) {
  return (request: { method?: string; url: string; payload?: unknown }) =>
    send({
      method: request.method ?? 'GET',
      url: request.url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(walletKey ? { 'x-service-wallet-key': walletKey } : {}),
        ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload: request.payload === undefined ? undefined : JSON.stringify(request.payload),
    });
}

async function createWallet(token: string, name: string): Promise<string> {
  const res = await as(token)({ method: 'POST', url: '/wallets', payload: { name } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

/** Funds a wallet the way users do: an invoice of it, paid by bob over the lab's channels. */
async function fund(token: string, walletId: string, amountMsat: number): Promise<void> {
  const invoice = await as(
    token,
    walletId,
  )({ method: 'POST', url: '/payments/invoices', payload: { amount_msat: amountMsat } });
  expect(invoice.statusCode, invoice.body).toBe(200);
  const paid = await lab.call('POST', `/labs/${lab.name}/payments?wait=true`, {
    from: 'bob',
    invoice: invoice.json().payment_request,
  });
  expect(paid.body.state, JSON.stringify(paid.body)).toBe('completed');
  await waitFor(
    async () => (await as(token)({ url: `/wallets/${walletId}` })).json().balance_msat === String(amountMsat),
    {
      timeoutMs: 30_000,
      what: `wallet ${walletId} credited with ${amountMsat} msat`,
    },
  );
}

/** What the victim (via the API) and the ledger hold: must not move under the attacker's requests. */
async function snapshot() {
  const v = as(victim);
  const list = await v({ url: '/wallets?include_archived=true' });
  const perWallet = [];
  for (const id of victimWallets) {
    const w = await v({ url: `/wallets/${id}` });
    const tx = await v({ url: `/wallets/${id}/transactions?limit=200` });
    perWallet.push({ id, wallet: w.json(), transactions: tx.json() });
  }
  const keys = await v({ url: '/me' });
  const attackerView = (await as(attacker)({ url: `/wallets/${attackerWallet}` })).json();
  const { rows: entries } = await ledgerDb.query<{ n: string; total: string }>(
    'select count(*)::text as n, coalesce(sum(delta), 0)::text as total from ledger_entries where wallet_id <> $1',
    [attackerWallet],
  );
  return { list: list.json(), perWallet, me: keys.json(), attacker: attackerView, entries };
}

beforeAll(async () => {
  lab = await sharedLab();
  base = await lab.httpBase('wallet-server');
  ledgerDb = new pg.Client({ connectionString: (await lab.info('postgres')).url });
  await ledgerDb.connect();
  [victim, attacker, admin] = await Promise.all([
    walletServerToken(base, newKey()),
    walletServerToken(base, newKey()),
    walletServerToken(base, lab.admin),
  ]);
  // bob gets outbound liquidity towards alice, the wallet server's node, to fund the wallets: more
  // than the reserve of his side of the channel (1% of it), which he cannot spend
  const liquidity = await lab.call('POST', `/labs/${lab.name}/payments?wait=true`, {
    from: 'alice',
    to: 'bob',
    amount_sat: 100_000,
  });
  expect(liquidity.body.state, JSON.stringify(liquidity.body)).toBe('completed');
  victimWallets = [await createWallet(victim, 'victim-main'), await createWallet(victim, 'victim-savings')];
  await fund(victim, victimWallets[0]!, 5_000_000);
  await fund(victim, victimWallets[1]!, 7_000);
  const put = await as(victim)({
    method: 'PUT',
    url: `/wallets/${victimWallets[0]}/lightning-address`,
    payload: { username: 'victim' },
  });
  expect(put.statusCode, put.body).toBe(200);
  attackerWallet = await createWallet(attacker, 'attacker');
  await fund(attacker, attackerWallet, 2_000_000);
});

afterAll(async () => {
  await ledgerDb?.end();
});

describe('what the fuzz found, pinned', () => {
  test('NUL and unpaired surrogates in text are a 400 INVALID_TEXT, not a 500 from Postgres', async () => {
    const call = as(attacker, attackerWallet);
    const cases = [
      { method: 'POST', url: '/wallets', payload: { name: 'a\u0000b' } },
      { method: 'POST', url: '/wallets', payload: { name: 'ok', metadata: { note: '\ud800' } } },
      {
        method: 'POST',
        url: '/payments/internal',
        payload: {
          from_wallet_id: attackerWallet,
          to_wallet_id: victimWallets[0],
          asset_kind: 'rgb',
          asset_id: '\ude00',
          asset_amount: '1',
        },
      },
      { url: '/.well-known/lnurlp/%00' },
    ];
    for (const c of cases) {
      const res = await call(c);
      expect(res.statusCode, `${c.url} ${res.body}`).toBe(400);
      expect(res.json().error.code).toBe('INVALID_TEXT');
    }
  });

  test('router errors (undecodable URL, too long path parameter) carry the JSON error body', async () => {
    const bad = await send({ method: 'GET', url: '/wallets/%ZZ/transactions' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'BAD_REQUEST' });
    const long = await send({ method: 'GET', url: `/payments/${'A'.repeat(2000)}` });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatchObject({ code: 'PARAM_TOO_LONG' });
  });
});

describe('OpenAPI schema fuzz', () => {
  test('every operation: no 5xx, JSON error bodies, nothing of another user changes or shows', async () => {
    const docRes = await send({ method: 'GET', url: '/openapi.json' });
    expect(docRes.statusCode).toBe(200);
    const ops = operationsOf(docRes.json());
    // The document must carry the Lightning routes too, or the fuzz would miss them.
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'POST /payments/invoices',
        'POST /payments/pay',
        'POST /payments/keysend',
        'PUT /wallets/{id}/lightning-address',
        'GET /lnurlp/{username}/callback',
      ]),
    );

    expect(ops.some((o) => o.parameters.some((p) => p.in === 'header' && p.name === 'x-service-wallet-key'))).toBe(
      true,
    );

    const before = await snapshot();
    const ctx: Ctx = {
      walletIds: () => [victimWallets[0]!, victimWallets[1]!, attackerWallet],
      victimWallet: victimWallets[0]!,
      attackerWallet,
      username: 'victim',
    };
    const failures = new Map<string, string[]>();
    let sent = 0;
    const statuses: Record<string, number> = {};
    for (const [i, op] of ops.entries()) {
      const rng = prng(SEED + i * 7919);
      for (let n = 0; n < PER_OPERATION; n++) {
        // Log out is a legitimate way to end one's own session; keep the attacker's token alive.
        const req = buildRequest(rng, op, ctx, { user: attacker, admin });
        const res = await send(req);
        sent++;
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        // Without valid credentials a protected route answers 401 whatever the request looks like.
        const problem = problemOf(res, op.secured && req.anonymous);
        if (problem) {
          const key = `${op.method} ${op.path}: ${problem}`;
          const list = failures.get(key) ?? [];
          if (list.length < 3)
            list.push(
              `${req.label}\n    payload: ${String(req.payload ?? '').slice(0, 200)}\n    -> ${res.body.slice(0, 300)}`,
            );
          failures.set(key, list);
        }
      }
    }
    console.log(`openapi fuzz: ${ops.length} operations, ${sent} requests, statuses ${JSON.stringify(statuses)}`);
    const report = [...failures.entries()].map(([k, v]) => `${k}\n  ${v.join('\n  ')}`).join('\n');
    expect(report, report).toBe('');

    // Nothing of the victim changed; the attacker's money did not move; no victim wallet shows to the attacker.
    expect(await snapshot()).toEqual(before);
    const mine = await as(attacker)({ url: '/wallets?include_archived=true' });
    expect(mine.statusCode).toBe(200);
    const seen = JSON.stringify(mine.json());
    for (const id of victimWallets) expect(seen).not.toContain(id);
    for (const id of victimWallets) {
      const r = await as(attacker)({ url: `/wallets/${id}` });
      expect(r.statusCode).toBe(404);
    }
  }, 180_000);
});
