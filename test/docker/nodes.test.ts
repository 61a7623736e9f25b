// btcd and lnd from the local images, run by the docker runtime as a planner would: lnd reaches
// btcd by container name on the lab network, the test reaches both on their 127.0.0.1 ports.
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { getWalletInfo } from 'ln-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BtcdDriver } from '../../lib/chain/btcd.js';
import { connectLnd } from '../../lib/lightning/lnd/connection.js';
import { buildImages } from '../../control-plane/src/images/build.js';
import { BTCD_RPC_CERT_FILE, btcdLaunch } from '../../control-plane/src/nodes/btcd/launch.js';
import { LND_ADMIN_MACAROON_FILE, LND_TLS_CERT_FILE, lndLaunch } from '../../control-plane/src/nodes/lnd/launch.js';
import { indexerLaunch } from '../../control-plane/src/nodes/indexer/index.js';
import { electrumCall } from '../../control-plane/src/nodes/indexer/electrum.js';
import { dockerPlacement } from '../../control-plane/src/runtimes/docker/placement.js';
import { createDockerRuntime, type DockerRuntime } from '../../control-plane/src/runtimes/docker/runtime.js';
import { freePorts } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { engine, labLeftovers, layoutOf, recipesOf, startRequest, uniqueLab } from './support.js';

// a regtest P2WPKH address (any valid one will do as btcd's --miningaddr)
const MINING_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

const electrum = <T>(port: number, method: string, params: unknown[] = []) =>
  electrumCall(`127.0.0.1:${port}`, method, params) as Promise<T>;

describe('btcd and lnd containers from the local images', () => {
  let docker: Docker;
  let runtime: DockerRuntime;
  let btcd: BtcdDriver | undefined;
  const lab = { name: uniqueLab('nodes'), dir: '/nonexistent' };
  const layout = layoutOf(lab, { chain: 'btcd', alice: 'lnd', indexer: 'indexer' });
  const rpc = { user: 'reglab', password: randomBytes(8).toString('hex') };
  let ports: number[];

  beforeAll(async () => {
    docker = await engine();
    // the services image compiles the project once per change of its sources (about a minute)
    const { images } = await buildImages({ docker, images: recipesOf('btcd', 'lnd', 'indexer') });
    runtime = createDockerRuntime({ docker, images });
    await runtime.prepareLab(lab);
    ports = await freePorts(4);
  });

  afterAll(async () => {
    btcd?.close();
    await runtime?.removeLab(lab, { volumes: true });
    expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it('btcd answers RPC over TLS on its published 127.0.0.1 port', async () => {
    const launch = btcdLaunch(dockerPlacement(layout, 'chain'), {
      rpcUser: rpc.user,
      rpcPassword: rpc.password,
      miningAddress: MINING_ADDRESS,
    });
    await runtime.start(startRequest(lab, 'chain', 'btcd', launch, { rpc: ports[0] }));
    const cert = await waitFor(() => runtime.readServiceFile({ lab, service: 'chain' }, BTCD_RPC_CERT_FILE), {
      timeoutMs: 30_000,
      what: 'btcd rpc.cert',
    });
    btcd = new BtcdDriver({
      kind: 'btcd',
      url: `https://127.0.0.1:${ports[0]}`,
      user: rpc.user,
      password: rpc.password,
      tlsCertPem: cert.toString(),
    });
    expect(
      await waitFor(() => btcd!.getBlockCount().then((count) => count + 1), { timeoutMs: 30_000, what: 'btcd RPC' }),
    ).toBe(1);
    await btcd.generate(3);
    expect(await btcd.getBlockCount()).toBe(3);
  });

  it('lnd reaches btcd by service name and serves gRPC on its published port', async () => {
    const cert = await runtime.readServiceFile({ lab, service: 'chain' }, BTCD_RPC_CERT_FILE);
    const launch = lndLaunch(dockerPlacement(layout, 'alice'), {
      alias: 'alice',
      chainService: 'chain',
      chainRpcUser: rpc.user,
      chainRpcPassword: rpc.password,
      chainRpcCertPem: cert.toString(),
      tlsExtraDomains: ['alice'],
    });
    await runtime.start(startRequest(lab, 'alice', 'lnd', launch, { grpc: ports[1], rest: ports[2] }));
    const location = { lab, service: 'alice' };
    const macaroon = await waitFor(() => runtime.readServiceFile(location, LND_ADMIN_MACAROON_FILE), {
      timeoutMs: 90_000,
      what: 'lnd admin.macaroon',
    });
    const tls = await runtime.readServiceFile(location, LND_TLS_CERT_FILE);
    const lnd = connectLnd({
      socket: `127.0.0.1:${ports[1]}`,
      certBase64: tls.toString('base64'),
      macaroonHex: macaroon.toString('hex'),
    });
    const info = await waitFor(
      async () => {
        const wallet = await getWalletInfo({ lnd });
        return wallet.current_block_height === 3 && wallet;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: 'lnd synced to btcd' },
    );
    expect(info.alias).toBe('alice');
    expect(await runtime.logs(location, undefined, 500)).toMatch(
      /Chain backend is fully synced|Started rescan|Opened wallet/,
    );
  });

  it('the indexer from the services image follows btcd over the lab network and serves Electrum', async () => {
    const cert = await runtime.readServiceFile({ lab, service: 'chain' }, BTCD_RPC_CERT_FILE);
    const placement = dockerPlacement(layout, 'indexer');
    const chain = {
      kind: 'btcd' as const,
      url: `https://${placement.reach('chain', 'rpc')}`,
      user: rpc.user,
      password: rpc.password,
      tlsCertPem: cert.toString(),
    };
    await runtime.start(
      startRequest(lab, 'indexer', 'indexer', indexerLaunch(placement, chain), { electrum: ports[3] }),
    );
    const tip = await waitFor(
      async () => {
        const header = await electrum<{ height: number }>(ports[3], 'blockchain.headers.subscribe');
        return header.height === 3 && header;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the indexer container at height 3' },
    );
    expect(tip.height).toBe(3);
  });
});
