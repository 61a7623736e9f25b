import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Placement } from '../kinds/types.js';
import type { Runtime } from '../runtimes/types.js';
import type { LabSpec } from '../spec/types.js';
import { freePort, isListening } from '../util/ports.js';
import { describeError } from '../../../lib/errors.js';
import { waitFor } from '../../../lib/wait.js';
import { newPrivateKeyHex } from '../wallet/keys.js';
import type { LabEventListener } from './events.js';
import { launchFor } from './launch.js';
import { mineBlocks, newNodeAddress, nodePubkey, openChannelBetween, waitChannelActive, waitGraphChannels, waitNodeSynced } from './operations.js';
import { CHAIN_SERVICE, planLab, requestedHostPorts } from './plan.js';
import { electrumTipHeight, probeReady } from './readiness.js';
import { RlnClient } from '../drivers/rln.js';
import { bringUpRln } from '../kinds/rln-bringup.js';
import { LabSession } from './session.js';
import type { LabState, ServiceState } from './state.js';

export interface LabDriverOptions {
  runtime: Runtime;
  /** How one service of the lab sees the others (depends on the runtime). */
  placementFor(lab: LabState, service: string): Placement;
  /** How this machine reaches the lab's services. */
  hostPlacement(lab: LabState): Placement;
  controlPlaneUrl?: string;
  onEvent: LabEventListener;
  /** Saves the lab state (called after every change worth keeping). */
  persist(): Promise<void>;
  readyTimeoutMs?: number;
}

export function newLabState(spec: LabSpec, specText: string, dir: string): LabState {
  const services: Record<string, ServiceState> = {};
  for (const planned of planLab(spec)) {
    services[planned.name] = { name: planned.name, kind: planned.kind, dependsOn: planned.dependsOn, status: 'pending', hostPorts: {}, info: {} };
  }
  return {
    name: spec.name,
    spec,
    specText,
    dir,
    runtime: spec.runtime,
    status: 'starting',
    createdAt: new Date().toISOString(),
    secrets: {
      chainRpcUser: 'reglab',
      chainRpcPassword: randomBytes(12).toString('hex'),
      labWalletKeyHex: newPrivateKeyHex(),
      walletServerTokenSecret: randomBytes(32).toString('hex'),
      rlnPassword: randomBytes(12).toString('hex'),
    },
    services,
    phases: [],
  };
}

/**
 * Brings a lab up: chain, initial blocks, nodes and infrastructure, funding, channels, services.
 * Each service is reported as it becomes ready; each phase's duration is recorded.
 */
export async function bringUp(lab: LabState, options: LabDriverOptions): Promise<LabSession> {
  const session = new LabSession(lab, options);
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await work();
    const ms = Date.now() - started;
    lab.phases.push({ name, ms });
    options.onEvent({ type: 'phase', lab: lab.name, phase: name, ms });
    await options.persist();
    return result;
  };
  const spec = lab.spec;
  const startAll = (names: string[]) => Promise.all(names.map((name) => startService(session, name, options)));
  /** Starts `names` wave by wave: each wave is what depends only on services already ready. */
  const startInWaves = async (names: string[]) => {
    let waiting = names;
    while (waiting.length > 0) {
      const wave = waiting.filter((name) => lab.services[name].dependsOn.every((dependency) => lab.services[dependency]?.status === 'ready'));
      if (wave.length === 0) throw new Error(`cannot start ${waiting.join(', ')}: their dependencies are not ready`);
      await startAll(wave);
      waiting = waiting.filter((name) => !wave.includes(name));
    }
  };
  const labServiceKinds = new Set(['wallet-server', 'faucet', 'chain-adapter']);
  const lndNodes = spec.nodes.filter((node) => node.kind === 'lnd').map((node) => node.name);
  try {
    await phase('prepare', async () => {
      await options.runtime.prepareLab({ name: lab.name, dir: lab.dir });
      await allocateHostPorts(lab);
    });
    await phase('chain', () => startAll([CHAIN_SERVICE]));
    await phase('initial blocks', () => mineBlocks(session, spec.mining.initial_blocks));
    await phase('nodes', () => startInWaves(Object.values(lab.services).filter((s) => s.name !== CHAIN_SERVICE && !labServiceKinds.has(s.kind)).map((s) => s.name)));
    await phase('funding', () => fundNodes(session));
    const rlnNodes = spec.nodes.filter((node) => node.kind === 'rln');
    if (rlnNodes.length > 0) await phase('rgb nodes', () => Promise.all(rlnNodes.map((node) => startRlnNode(session, node.name, node.funding_sat, options))));
    if (spec.channels.length > 0) await phase('channels', () => openDeclaredChannels(session, lndNodes));
    const rest = Object.values(lab.services).filter((s) => s.status === 'pending').map((s) => s.name);
    if (rest.length > 0) await phase('services', () => startInWaves(rest));
    lab.status = 'ready';
    await options.persist();
    options.onEvent({ type: 'lab', lab: lab.name, status: 'ready' });
    return session;
  } catch (error) {
    lab.status = 'failed';
    lab.error = describeError(error);
    await options.persist();
    options.onEvent({ type: 'lab', lab: lab.name, status: 'failed', message: lab.error });
    session.close();
    throw error;
  }
}

/** RLN's start sequence (init, unlock, fund, colored UTXOs) for an rln node whose API answers. */
async function startRlnNode(session: LabSession, node: string, fundingSat: number, options: LabDriverOptions): Promise<void> {
  const lab = session.lab;
  const placement = options.placementFor(lab, node);
  const client = new RlnClient(`http://${session.connections.hostAddress(node, 'api')}`);
  const result = await bringUpRln(client, {
    height: () => session.chain.getBlockCount(),
    mine: async (blocks) => void (await mineBlocks(session, blocks)),
    send: async (address, amountSat) => void (await session.labWallet.send([{ address, amountSat }])),
    indexedHeight: () => electrumTipHeight(session.connections.hostAddress('indexer', 'electrum')),
  }, {
    unlock: { password: lab.secrets.rlnPassword, chain: { kind: 'btcd' }, indexerUrl: `tcp://${placement.reach('indexer', 'electrum')}`, alias: node },
    fundingSat: BigInt(fundingSat),
  });
  lab.services[node].info = { ...lab.services[node].info, pubkey: result.pubkey, address: result.address };
  await options.persist();
}

async function allocateHostPorts(lab: LabState): Promise<void> {
  const requested = requestedHostPorts(lab.spec);
  const taken = new Set<number>();
  for (const planned of planLab(lab.spec)) {
    const service = lab.services[planned.name];
    for (const portName of planned.ports) {
      const fixed = requested[planned.name]?.[portName];
      if (fixed !== undefined && (await isListening(fixed))) {
        throw new Error(`port ${fixed} asked for ${planned.name} in lab.yaml is already in use on this machine`);
      }
      let port = fixed;
      while (port === undefined || taken.has(port)) port = await freePort();
      taken.add(port);
      service.hostPorts[portName] = port;
    }
  }
}

/** Starts one service and waits until its readiness probe passes; logs the tail of its output if it fails. */
export async function startService(session: LabSession, name: string, options: LabDriverOptions): Promise<void> {
  const lab = session.lab;
  const service = lab.services[name];
  const emit = (message?: string) => options.onEvent({ type: 'service', lab: lab.name, service: name, status: service.status, message, info: service.info });
  try {
    const launch = launchFor(service, { session, placement: options.placementFor(lab, name), controlPlaneUrl: options.controlPlaneUrl });
    service.handle = await options.runtime.start({ lab: session.labInfo, service: name, kind: service.kind, launch, hostPorts: service.hostPorts });
    service.status = 'starting';
    await options.persist();
    emit();
    await waitFor(async () => {
      if (service.handle && !(await options.runtime.isAlive(service.handle))) throw new ExitedError(`${name} exited`);
      return probeReady(session, name, service.kind);
    }, { timeoutMs: options.readyTimeoutMs ?? 90_000, intervalMs: 200, what: `${name} (${service.kind}) to be ready`, stopOn: (error) => error instanceof ExitedError });
    service.info = await describeService(session, service);
    service.status = 'ready';
    await options.persist();
    emit();
  } catch (error) {
    service.status = 'failed';
    const tail = await options.runtime.logs({ lab: session.labInfo, service: name }, service.handle, 15).catch(() => '');
    service.error = `${describeError(error)}${tail ? `\n--- last lines of ${name}'s log ---\n${tail}` : ''}`;
    await options.persist();
    emit(service.error);
    throw new Error(`${name} did not start: ${service.error}`);
  }
}

class ExitedError extends Error {}

/** What `status` and the bring-up summary show for a service. Writes lnd credentials to the lab folder. */
async function describeService(session: LabSession, service: ServiceState): Promise<Record<string, string>> {
  const lab = session.lab;
  const host = (port: string) => session.connections.hostAddress(service.name, port);
  switch (service.kind) {
    case 'btcd':
    case 'bitcoind': {
      const certFile = join(lab.dir, 'credentials', 'chain', 'rpc.cert');
      if (session.connections.chainCertPem) writeCredential(certFile, session.connections.chainCertPem);
      return { rpc: `${lab.spec.chain.kind === 'btcd' ? 'https' : 'http'}://${host('rpc')}`, p2p: host('p2p'), rpcUser: lab.secrets.chainRpcUser, rpcPassword: lab.secrets.chainRpcPassword, ...(session.connections.chainCertPem ? { rpcCert: certFile } : {}) };
    }
    case 'lnd': {
      const secrets = session.connections.lnd.get(service.name)!;
      const dir = join(lab.dir, 'credentials', service.name);
      writeCredential(join(dir, 'tls.cert'), Buffer.from(secrets.certBase64, 'base64'));
      writeCredential(join(dir, 'admin.macaroon'), Buffer.from(secrets.macaroonHex, 'hex'));
      return { pubkey: await nodePubkey(session, service.name), grpc: host('grpc'), rest: `https://${host('rest')}`, p2p: host('p2p'), tlsCert: join(dir, 'tls.cert'), macaroon: join(dir, 'admin.macaroon') };
    }
    case 'postgres':
      return { url: `postgres://postgres@${host('sql')}/postgres` };
    case 'redis':
      return { url: `redis://${host('redis')}` };
    case 'indexer':
    case 'electrs':
      return { electrum: `tcp://${host('electrum')}` };
    case 'wallet-server':
      return { url: `http://${host('http')}`, docs: `http://${host('http')}/docs` };
    case 'faucet':
      return { url: `http://${host('http')}/` };
    case 'chain-adapter':
      return { url: `http://${host('http')}/api` };
    case 'rln':
      return { api: `http://${host('api')}` };
  }
}

function writeCredential(file: string, content: string | Buffer): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, content, { mode: 0o600 });
}

/**
 * Funds every node in one transaction from the lab wallet: a node gets one output per channel it
 * opens plus one, so its channel openings need no unconfirmed change.
 */
async function fundNodes(session: LabSession): Promise<void> {
  const spec = session.lab.spec;
  const payouts = [];
  for (const node of spec.nodes) {
    if (node.kind !== 'lnd' || node.funding_sat === 0) continue;
    const outputs = 1 + spec.channels.filter((channel) => channel.from === node.name).length;
    for (let i = 0; i < outputs; i++) payouts.push({ address: await newNodeAddress(session, node.name), amountSat: BigInt(Math.floor(node.funding_sat / outputs)) });
  }
  if (payouts.length === 0) return;
  await session.labWallet.send(payouts);
  await mineBlocks(session, 1);
  await Promise.all(spec.nodes.filter((node) => node.kind === 'lnd' && node.funding_sat > 0).map((node) => waitNodeSynced(session, node.name, { minConfirmedSat: 1 })));
}

/** Opens lab.yaml's channels, confirms and announces them (6 blocks), and waits until every node can route over them. */
async function openDeclaredChannels(session: LabSession, lndNodes: string[]): Promise<void> {
  const channels = session.lab.spec.channels;
  const opened = await Promise.all(channels.map((channel) => openChannelBetween(session, { from: channel.from, to: channel.to, capacitySat: channel.capacity_sat, pushSat: channel.push_sat })));
  await mineBlocks(session, 6);
  await Promise.all(channels.flatMap((channel, index) => {
    const fundingTxid = opened[index].fundingTxid;
    return [waitChannelActive(session, channel.from, channel.to, { fundingTxid }), waitChannelActive(session, channel.to, channel.from, { fundingTxid })];
  }));
  const connected = lndNodes.filter((node) => channels.some((channel) => channel.from === node || channel.to === node));
  await Promise.all(connected.map((node) => waitGraphChannels(session, node, channels.length)));
}
