// The wallet server as a real child process, as the lab runs it (its bundle once built:
// lib/programs.ts), for tests that kill it: start, SIGKILL, and HTTP calls as a signed-in user.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { BUNDLED_PROGRAMS, programArguments } from '../../lib/programs.js';
import { REGTEST_ADDRESS, newKey, signNonce } from './support.js';
import { eventually } from './lightning-support.js';

export interface ApiAnswer {
  status: number;
  json: any;
}

export class WalletServerProcess {
  private proc: ChildProcess | null = null;

  constructor(
    private readonly env: Record<string, string>,
    readonly base: string,
  ) {}

  async start(): Promise<void> {
    this.proc = spawn(process.execPath, programArguments(BUNDLED_PROGRAMS['wallet-server']!), {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await eventually(
      async () => (await fetch(`${this.base}/health`).catch(() => null))?.ok,
      'the wallet server to answer /health',
      60_000,
    );
  }

  /** SIGKILL: no shutdown hook runs, as in a crash. */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p) return;
    this.proc = null;
    const exited = once(p, 'exit');
    p.kill('SIGKILL');
    await exited;
  }

  async call(
    method: string,
    path: string,
    auth: { token: string; wallet?: string },
    body?: unknown,
  ): Promise<ApiAnswer> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${auth.token}`,
        ...(auth.wallet ? { 'x-service-wallet-key': auth.wallet } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: await res.json() };
  }

  /** Enrolls a new key and signs in with it; returns the access token. */
  async signUp(): Promise<string> {
    const key = newKey();
    const post = (path: string, body: unknown) =>
      fetch(`${this.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/auth/enroll', { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS });
    const { nonce } = await (await fetch(`${this.base}/auth/challenge?pubkey=${key.pubkey}`)).json();
    const verify = await post('/auth/verify', {
      pubkey: key.pubkey,
      nonce,
      signature: await signNonce(key.secretKey, nonce),
    });
    return (await verify.json()).access_token;
  }

  async createWallet(token: string, name: string): Promise<string> {
    const res = await this.call('POST', '/wallets', { token }, { name });
    if (res.status !== 200) throw new Error(`POST /wallets: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json.id;
  }
}
