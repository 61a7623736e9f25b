// The default-shaped labs that integration files which only use a lab, without breaking it, share
// (test/support/shared-lab.ts): brought up by the global set-up's process, each under a control
// plane of its own there (a file that drives the CLI finds one lab, as a user's control plane has),
// when a file first asks, so that a run of files that need none starts none.
// Files run side by side, and one asserts the heights and balances another's mining or payments
// would move: a file has a lab to itself while it runs. It asks the broker over HTTP (the global
// set-up provides the broker's address to the files: vitest's provide/inject) and keeps the
// connection open; the lab is lent until that connection closes, when the file's process ends.
// The broker brings up another lab only when every lab it has is lent, one per file the run runs at
// once at most (its workers). A lab is lab.yaml under another name, its wallet server with one admin
// key, whose secret the broker hands out too.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPublicKey, utils } from '@noble/secp256k1';
import { describeError } from '../../lib/errors.js';
import { bringUpLab, defaultLabYaml, startTestControlPlane, type TestControlPlane } from './control-plane.js';

/** What a file gets of its shared lab. */
export interface SharedLabAddress {
  /** The control plane that runs it. */
  url: string;
  /** The lab's name there. */
  name: string;
  /** The control plane's state folder: REGLAB_HOME for the CLI, which finds the control plane from it. */
  home: string;
  /** The secret key (hex) of the wallet server's admin. */
  adminSecretKeyHex: string;
}

interface Lab {
  controlPlane: Promise<TestControlPlane>;
  ready: Promise<SharedLabAddress>;
  lent: boolean;
}

async function bringUpSharedLab(controlPlane: TestControlPlane, name: string): Promise<SharedLabAddress> {
  const adminKey = utils.randomSecretKey();
  const adminPubkey = Buffer.from(getPublicKey(adminKey, true)).toString('hex');
  const yaml = defaultLabYaml(name).replace(/^( {4}admin_pubkeys:) \[\]$/m, `$1 [${adminPubkey}]`);
  if (!yaml.includes(adminPubkey)) throw new Error("lab.yaml's wallet server has no `admin_pubkeys: []` to set");
  await bringUpLab(controlPlane, yaml, name);
  return {
    url: controlPlane.plane.url,
    name,
    home: controlPlane.home,
    adminSecretKeyHex: Buffer.from(adminKey).toString('hex'),
  };
}

export interface SharedLabBroker {
  url: string;
  /** Takes the shared labs down, if any was brought up. */
  stop(): Promise<void>;
}

/** A broker that brings up at most `maxLabs` labs: as many as the run has files at once (its workers). */
export async function startSharedLabBroker(maxLabs: number): Promise<SharedLabBroker> {
  const labs: Lab[] = [];
  /** Files waiting for a lab while every one is lent. */
  const waiting: ServerResponse[] = [];

  const lend = (lab: Lab, response: ServerResponse) => {
    lab.lent = true;
    response.once('close', () => {
      lab.lent = false;
      const next = waiting.shift();
      if (next) lend(lab, next);
    });
    lab.ready.then(
      // the response stays open: the lab is the file's until it closes
      (address) =>
        response.writeHead(200, { 'content-type': 'application/json' }).write(`${JSON.stringify(address)}\n`),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`the shared lab failed to come up: ${describeError(error)}`),
    );
  };

  const server = createServer((_request, response) => {
    const idle = labs.find((lab) => !lab.lent);
    if (idle) return lend(idle, response);
    if (labs.length < maxLabs) {
      const name = `shared-${labs.length + 1}`;
      const controlPlane = startTestControlPlane();
      const lab = { controlPlane, ready: controlPlane.then((plane) => bringUpSharedLab(plane, name)), lent: false };
      labs.push(lab);
      return lend(lab, response);
    }
    waiting.push(response);
    response.once('close', () => {
      const at = waiting.indexOf(response);
      if (at >= 0) waiting.splice(at, 1);
    });
  });
  // a bring-up takes longer than Node's default request timeout allows the files that wait for it
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled(labs.map((lab) => lab.ready));
      await Promise.all(labs.map((lab) => lab.controlPlane.then((plane) => plane.stop()).catch(() => undefined)));
    },
  };
}
