// The default-shaped lab that integration files which only use a lab, without breaking it, share
// (test/support/shared-lab.ts): brought up once per test run by the global set-up's process, under
// a control plane of its own there, the first time a file asks for it, so that a run of files that
// need none of it starts none of it. The files reach it over HTTP: the global set-up provides the
// broker's address to them (vitest's provide/inject), and the broker answers the control plane's
// address and the lab's name. The lab is lab.yaml under another name, its wallet server with one
// admin key, whose secret the broker hands out too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPublicKey, utils } from '@noble/secp256k1';
import { describeError } from '../../lib/errors.js';
import { bringUpLab, defaultLabYaml, startTestControlPlane, type TestControlPlane } from './control-plane.js';

export const SHARED_LAB = 'shared';

/** What a file gets of the shared lab. */
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

interface Running {
  address: SharedLabAddress;
  controlPlane: TestControlPlane;
}

async function bringUpSharedLab(): Promise<Running> {
  const adminKey = utils.randomSecretKey();
  const adminPubkey = Buffer.from(getPublicKey(adminKey, true)).toString('hex');
  const yaml = defaultLabYaml(SHARED_LAB).replace(/^( {4}admin_pubkeys:) \[\]$/m, `$1 [${adminPubkey}]`);
  if (!yaml.includes(adminPubkey)) throw new Error("lab.yaml's wallet server has no `admin_pubkeys: []` to set");
  const controlPlane = await startTestControlPlane();
  try {
    await bringUpLab(controlPlane, yaml, SHARED_LAB);
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
  return {
    address: {
      url: controlPlane.plane.url,
      name: SHARED_LAB,
      home: controlPlane.home,
      adminSecretKeyHex: Buffer.from(adminKey).toString('hex'),
    },
    controlPlane,
  };
}

export interface SharedLabBroker {
  url: string;
  /** Takes the shared lab down, if it was brought up. */
  stop(): Promise<void>;
}

export async function startSharedLabBroker(): Promise<SharedLabBroker> {
  let lab: Promise<Running> | undefined;
  const server: Server = createServer((_request, response) => {
    lab ??= bringUpSharedLab();
    lab.then(
      (running) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(running.address)),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `the shared lab failed to come up: ${describeError(error)}` })),
    );
  });
  // a bring-up takes longer than Node's default request timeout allows the files that wait for it
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await lab?.then((running) => running.controlPlane.stop()).catch(() => undefined);
    },
  };
}
