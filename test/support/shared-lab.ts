// A default-shaped lab the integration files share (test/support/shared-lab-broker.ts), for a file
// that uses a lab without breaking it: it reads it, mines, funds, pays over its channels, makes
// users and wallets on its wallet server. A file that kills, stops, reorgs, snapshots or faults a
// lab, or changes its shape (channels), keeps a lab of its own and says why in its header. The lab
// is the file's alone while it runs (until its process ends), but other files use it before and
// after: a file asserts what it changed (heights, balances before and after), never what the lab
// held when it came up.
import { get } from 'node:http';
import { getPublicKey } from '@noble/secp256k1';
import { inject } from 'vitest';
import type { SharedLabAddress } from './shared-lab-broker.js';
import { apiCaller, type ApiCall } from './control-plane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The address of the broker that brings the shared lab up (global-setup.ts). */
    sharedLabBroker: string;
  }
}

export interface SharedLab {
  /** The control plane that runs it. */
  url: string;
  name: string;
  /** The control plane's state folder (REGLAB_HOME): the CLI finds the control plane from it. */
  home: string;
  /** The control plane's API. */
  call: ApiCall;
  /** http://127.0.0.1:PORT of one of the lab's HTTP services (wallet-server, faucet, chain-adapter). */
  httpBase(service: string): Promise<string>;
  /** What the lab reports of one of its services (its info: urls, pubkeys). */
  info(service: string): Promise<Record<string, string>>;
  /** The wallet server's admin key. */
  admin: { secretKey: Uint8Array; pubkey: string };
}

let borrowed: Promise<SharedLabAddress> | undefined;

/** A shared lab, this file's until its process ends (its beforeAll waits for it, brought up if need be). */
export async function sharedLab(): Promise<SharedLab> {
  borrowed ??= borrow(inject('sharedLabBroker'));
  const answer = await borrowed;
  const call = apiCaller(() => answer.url);
  const secretKey = Uint8Array.from(Buffer.from(answer.adminSecretKeyHex, 'hex'));
  const serviceOf = async (name: string): Promise<{ ports: Record<string, number>; info: Record<string, string> }> => {
    const { body } = await call('GET', `/labs/${answer.name}`);
    const found = body.services?.find((service: { name: string }) => service.name === name);
    if (!found) throw new Error(`the shared lab has no service ${name}: ${JSON.stringify(body)}`);
    return found;
  };
  return {
    url: answer.url,
    name: answer.name,
    home: answer.home,
    call,
    async httpBase(service) {
      const port = (await serviceOf(service)).ports?.http;
      if (typeof port !== 'number') throw new Error(`the shared lab's ${service} has no http port`);
      return `http://127.0.0.1:${port}`;
    },
    info: async (service) => (await serviceOf(service)).info,
    admin: { secretKey, pubkey: Buffer.from(getPublicKey(secretKey, true)).toString('hex') },
  };
}

/**
 * Asks the broker for a lab: the first line of its answer is the lab's address, and the connection
 * stays open as long as the file has the lab. It does not hold this process up: the lab goes back
 * when the process ends.
 */
function borrow(broker: string): Promise<SharedLabAddress> {
  return new Promise((resolve, reject) => {
    const request = get(broker, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        const line = text.indexOf('\n');
        if (response.statusCode !== 200 || line < 0) return;
        response.socket.unref();
        resolve(JSON.parse(text.slice(0, line)) as SharedLabAddress);
      });
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(text));
      });
    });
    request.on('error', reject);
  });
}
