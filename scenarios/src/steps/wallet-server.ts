// The wallet server as its users drive it: a user signs in with a key of its own, then uses its
// wallets, API keys, invoices and payments over the server's HTTP API.
import { signAsync } from '@noble/secp256k1';
import { networks, payments } from 'bitcoinjs-lib';
import { StepFailure } from './failure.js';
import { call } from './http.js';
import type { AnyStepKind, StepContext } from './kind.js';
import { exactlyOne, msat, node, object, text } from './schema-parts.js';

/** Who calls: a user signed in by this run, or an API key (`rlk_...`). */
interface Credential {
  user?: string;
  api_key?: string;
}

const credential = {
  user: { ...text, description: 'a user signed in earlier in this run' },
  api_key: { ...text, description: 'an API key (rlk_...)' },
};
const oneCredential = (args: Credential) => exactlyOne(args as Record<string, unknown>, ['user', 'api_key']);
const wallet = { ...text, description: 'a wallet id (save it from wallet_server.create_wallet)' };

async function walletServer(
  context: StepContext,
  path: string,
  options: { credential?: Credential; wallet?: string; method?: string; body?: unknown } = {},
): Promise<unknown> {
  const base = await context.services.url('wallet-server');
  const { user, api_key } = options.credential ?? {};
  const token = api_key ?? (user ? context.users.accessToken(user) : undefined);
  return call(`${base}${path}`, {
    method: options.method,
    body: options.body,
    signal: context.signal,
    service: 'wallet-server',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.wallet ? { 'x-service-wallet-key': options.wallet } : {}),
    },
  });
}

/** A payment the node reported as failed is a failed step: that is what the user sees. */
function paymentOutcome(payment: unknown): unknown {
  const record = payment as { status?: string; error?: string | null };
  if (record.status === 'failed')
    throw new StepFailure(`the payment failed: ${record.error ?? 'no reason given'}`, {
      code: 'PAYMENT_FAILED',
      body: payment,
    });
  return payment;
}

const signIn: AnyStepKind = {
  name: 'wallet_server.sign_in',
  summary: 'enrol a user with a new secp256k1 key (first time) and sign in: challenge, signed nonce, tokens',
  args: object(
    { user: text, bitcoin_address: { ...text, description: 'default: the P2WPKH address of the user key' } },
    ['user'],
  ),
  async run(args: { user: string; bitcoin_address?: string }, context) {
    const user = context.users.get(args.user);
    if (!user.enrolled) {
      const address =
        args.bitcoin_address ??
        payments.p2wpkh({ pubkey: Buffer.from(user.pubkey, 'hex'), network: networks.regtest }).address!;
      await walletServer(context, '/auth/enroll', { body: { pubkey: user.pubkey, bitcoin_address: address } });
      user.enrolled = true;
    }
    const challenge = (await walletServer(context, `/auth/challenge?pubkey=${user.pubkey}`)) as {
      nonce: string;
      message: string;
    };
    const signature = Buffer.from(await signAsync(Buffer.from(challenge.message, 'utf8'), user.secretKey)).toString(
      'hex',
    );
    const tokens = (await walletServer(context, '/auth/verify', {
      body: { pubkey: user.pubkey, nonce: challenge.nonce, signature },
    })) as { access_token: string };
    user.accessToken = tokens.access_token;
    return { user: args.user, pubkey: user.pubkey, ...tokens };
  },
};

const createWallet: AnyStepKind = {
  name: 'wallet_server.create_wallet',
  summary: 'POST /wallets: a new wallet of the user',
  args: object({ ...credential, name: text, metadata: {} }, ['name']),
  check: oneCredential,
  run: (args: Credential & { name: string; metadata?: unknown }, context) =>
    walletServer(context, '/wallets', {
      credential: args,
      body: { name: args.name, ...(args.metadata === undefined ? {} : { metadata: args.metadata }) },
    }),
};

const getWallet: AnyStepKind = {
  name: 'wallet_server.wallet',
  summary: 'GET /wallets/{id}: the wallet with its balance_msat',
  args: object({ ...credential, wallet }, ['wallet']),
  check: oneCredential,
  run: (args: Credential & { wallet: string }, context) =>
    walletServer(context, `/wallets/${encodeURIComponent(args.wallet)}`, { credential: args }),
};

const createApiKey: AnyStepKind = {
  name: 'wallet_server.create_api_key',
  summary:
    'POST /auth/api-keys: an API key (read, invoice or full; optionally bound to one wallet); the secret is in api_key',
  args: object({ ...credential, name: text, scope: { enum: ['read', 'invoice', 'full'] }, wallet, expires_at: text }, [
    'name',
  ]),
  check: oneCredential,
  run: (args: Credential & { name: string; scope?: string; wallet?: string; expires_at?: string }, context) =>
    walletServer(context, '/auth/api-keys', {
      credential: args,
      body: { name: args.name, scope: args.scope, wallet_id: args.wallet, expires_at: args.expires_at },
    }),
};

const invoice: AnyStepKind = {
  name: 'wallet_server.invoice',
  summary: 'POST /payments/invoices: a BOLT11 invoice of the wallet (payment_request, payment_hash)',
  args: object(
    {
      ...credential,
      wallet,
      amount_msat: msat,
      description: { type: 'string' },
      expiry_sec: { type: 'integer', minimum: 1 },
    },
    ['wallet', 'amount_msat'],
  ),
  check: oneCredential,
  run: (
    args: Credential & { wallet: string; amount_msat: number | string; description?: string; expiry_sec?: number },
    context,
  ) =>
    walletServer(context, '/payments/invoices', {
      credential: args,
      wallet: args.wallet,
      body: { amount_msat: args.amount_msat, description: args.description, expiry_sec: args.expiry_sec },
    }),
};

const pay: AnyStepKind = {
  name: 'wallet_server.pay',
  summary:
    'POST /payments/pay: pay a BOLT11 invoice from the wallet; a payment the node failed fails the step (code PAYMENT_FAILED)',
  payment: () => true,
  args: object({ ...credential, wallet, invoice: text }, ['wallet', 'invoice']),
  check: oneCredential,
  run: async (args: Credential & { wallet: string; invoice: string }, context) =>
    paymentOutcome(
      await walletServer(context, '/payments/pay', {
        credential: args,
        wallet: args.wallet,
        body: { invoice: args.invoice },
      }),
    ),
};

const keysend: AnyStepKind = {
  name: 'wallet_server.keysend',
  summary: 'POST /payments/keysend: pay a lab node (node:) or any pubkey (dest_pubkey:) without an invoice',
  payment: () => true,
  args: object(
    {
      ...credential,
      wallet,
      amount_msat: msat,
      node,
      dest_pubkey: { type: 'string', pattern: '^0[23][0-9a-fA-F]{64}$' },
    },
    ['wallet', 'amount_msat'],
  ),
  check: (args: Credential & { node?: string; dest_pubkey?: string }) => [
    ...oneCredential(args),
    ...exactlyOne(args as Record<string, unknown>, ['node', 'dest_pubkey']),
  ],
  async run(
    args: Credential & { wallet: string; amount_msat: number | string; node?: string; dest_pubkey?: string },
    context,
  ) {
    const destination = args.dest_pubkey ?? (await context.services.pubkey(args.node!));
    return paymentOutcome(
      await walletServer(context, '/payments/keysend', {
        credential: args,
        wallet: args.wallet,
        body: { dest_pubkey: destination, amount_msat: args.amount_msat },
      }),
    );
  },
};

const transfer: AnyStepKind = {
  name: 'wallet_server.transfer',
  summary: 'POST /payments/internal: move msat between two wallets of the user (no node involved)',
  payment: () => true,
  args: object({ ...credential, from_wallet: wallet, to_wallet: wallet, amount_msat: msat }, [
    'from_wallet',
    'to_wallet',
    'amount_msat',
  ]),
  check: oneCredential,
  run: (args: Credential & { from_wallet: string; to_wallet: string; amount_msat: number | string }, context) =>
    walletServer(context, '/payments/internal', {
      credential: args,
      body: {
        from_wallet_id: args.from_wallet,
        to_wallet_id: args.to_wallet,
        asset_kind: 'btc',
        amount_msat: args.amount_msat,
      },
    }),
};

const lightningAddress: AnyStepKind = {
  name: 'wallet_server.lightning_address',
  summary:
    'PUT /wallets/{id}/lightning-address: claim a username (LNURL-pay), optionally with an LNURL-withdraw budget; answers lnurlp_url and lnurlw_url',
  args: object(
    {
      ...credential,
      wallet,
      username: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
      withdraw: object({ enabled: { type: 'boolean' }, max_msat_per_withdraw: msat, budget_msat: msat }, [
        'max_msat_per_withdraw',
        'budget_msat',
      ]),
    },
    ['wallet', 'username'],
  ),
  check: oneCredential,
  run: (args: Credential & { wallet: string; username: string; withdraw?: Record<string, unknown> }, context) =>
    walletServer(context, `/wallets/${encodeURIComponent(args.wallet)}/lightning-address`, {
      method: 'PUT',
      credential: args,
      body: { username: args.username, ...(args.withdraw ? { withdraw: { enabled: true, ...args.withdraw } } : {}) },
    }),
};

const request: AnyStepKind = {
  name: 'wallet_server.request',
  summary:
    'any call of the wallet-server API (GET /me, GET /payments/invoices/{hash}, /admin/..., ...), as the user or API key',
  args: object(
    {
      ...credential,
      wallet,
      method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
      path: { type: 'string', pattern: '^/' },
      body: {},
    },
    ['path'],
  ),
  check: (args: Credential) =>
    args.user !== undefined && args.api_key !== undefined ? ['give user or api_key, not both'] : [],
  run: (args: Credential & { wallet?: string; method?: string; path: string; body?: unknown }, context) =>
    walletServer(context, args.path, {
      credential: args,
      wallet: args.wallet,
      method: args.method ?? (args.body === undefined ? 'GET' : 'POST'),
      body: args.body,
    }),
};

export const walletServerSteps = [
  signIn,
  createWallet,
  getWallet,
  createApiKey,
  invoice,
  pay,
  keysend,
  transfer,
  lightningAddress,
  request,
];
