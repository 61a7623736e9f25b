import { randomBytes } from 'node:crypto';
import { waitFor } from '../../../lib/wait.js';
import { labLinks, networkFaultsOn } from '../network/links.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { ensureNodeBinary } from '../nodes/binary-build.js';
import { binaryBuildsFor, imageRecipesFor, kindDefinition } from '../nodes/registry.js';
import { ImageUnavailableError, type RuntimeOptions } from '../runtimes/types.js';
import type { LabSpec } from '../spec/types.js';
import { freePort, isListening } from '../util/ports.js';
import { newPrivateKeyHex } from '../wallet/keys.js';
import { waitNodeChannels } from './channels-ready.js';
import { issueDeclaredAssets } from './declared-assets.js';
import { mineBlocks, openChannelBetween } from './operations.js';
import { runToReady, type PhaseOptions } from './phases.js';
import { planLab, requestedHostPorts } from './plan.js';
import { LabSession } from './session.js';
import { startInDependencyOrder } from './start-order.js';
import { serviceEvent } from './start-service.js';
import { setStatus, type LabState, type ServiceState } from './state.js';

export interface LabDriverOptions extends PhaseOptions {
  runtimeOptions: RuntimeOptions;
  controlPlaneUrl?: string;
  readyTimeoutMs?: number;
}

/** `exposed`: the lab's user-facing services listen beyond loopback (a control plane open to the network). */
export function newLabState(
  spec: LabSpec,
  specText: string,
  dir: string,
  options: { exposed?: boolean } = {},
): LabState {
  const services: Record<string, ServiceState> = {};
  const now = new Date().toISOString();
  for (const planned of planLab(spec)) {
    services[planned.name] = {
      name: planned.name,
      kind: planned.kind,
      dependsOn: planned.dependsOn,
      status: 'pending',
      since: now,
      hostPorts: {},
      containerPorts: planned.containerPorts,
      ...(options.exposed && kindDefinition(planned.kind).public ? { public: true } : {}),
      info: {},
      restartPolicy: planned.restartPolicy,
      restarts: 0,
      restartTimes: [],
    };
  }
  return {
    name: spec.name,
    spec,
    specText,
    dir,
    runtime: spec.runtime,
    status: 'starting',
    createdAt: now,
    secrets: {
      chainRpcUser: 'reglab',
      chainRpcPassword: randomBytes(12).toString('hex'),
      labWalletKeyHex: newPrivateKeyHex(),
      walletServerTokenSecret: randomBytes(32).toString('hex'),
      rlnPassword: randomBytes(12).toString('hex'),
      accessToken: randomBytes(18).toString('base64url'),
    },
    services,
    phases: [],
    ...(networkFaultsOn(spec) ? { network: { links: labLinks(spec), faults: {} } } : {}),
  };
}

/**
 * Brings a lab up: chain, initial blocks, nodes and infrastructure, then funding (and the lab's
 * assets) and channels while the lab services start; the last phase, services, is what is left of
 * their start after the channels. Each service is reported as it becomes ready; each phase's
 * duration is recorded.
 */
export async function bringUp(lab: LabState, options: LabDriverOptions): Promise<LabSession> {
  const session = new LabSession(lab, options.runtimeOptions, options.controlPlaneUrl);
  const startAll = (names: string[]) => startInDependencyOrder(session, names, options);
  const nodeNames = new Set(lab.spec.nodes.map((node) => node.name));
  const labServiceKinds = new Set(['wallet-server', 'faucet', 'chain-adapter']);
  // a lab service a node follows the chain through (an ldk node's chain adapter) starts with the nodes
  const neededByNodes = new Set(lab.spec.nodes.flatMap((node) => lab.services[node.name].dependsOn));
  return runToReady(session, options, async (phase) => {
    await phase('prepare', async () => {
      await prepareRuntime(lab, options).catch((error: unknown) => failServicesWithoutImage(session, options, error));
      await allocateHostPorts(lab);
    });
    await phase('chain', () => startAll([CHAIN_SERVICE]));
    await phase('initial blocks', () => mineBlocks(session, lab.spec.mining.initial_blocks));
    await phase('nodes', () =>
      startAll(
        Object.values(lab.services)
          .filter((s) => s.name !== CHAIN_SERVICE && (!labServiceKinds.has(s.kind) || neededByNodes.has(s.name)))
          .map((s) => s.name),
      ),
    );
    // the lab services need their nodes up, not funded nor joined by channels, so they start while
    // those are made; but after the lab's assets are issued, when it declares some (an asset faucet gives one)
    const rest = Object.values(lab.services)
      .filter((s) => s.status === 'pending' && !nodeNames.has(s.name))
      .map((s) => s.name);
    let services = Promise.resolve();
    const startServices = () => {
      services = startAll(rest);
      services.catch(() => undefined); // its failure is awaited below, not unhandled meanwhile
    };
    if (lab.spec.assets.length === 0) startServices();
    try {
      await phase('funding', () => fundNodes(session));
      const finishing = lab.spec.nodes.filter((node) => node.funding_sat > 0 && kindDefinition(node.kind).afterFunding);
      if (finishing.length > 0)
        await phase('node set-up', () =>
          Promise.all(finishing.map((node) => kindDefinition(node.kind).afterFunding!(session, node.name))),
        );
      if (lab.spec.assets.length > 0) {
        await phase('assets', () => issueDeclaredAssets(session));
        startServices();
      }
      if (lab.spec.channels.length > 0) await phase('channels', () => openDeclaredChannels(session));
    } catch (error) {
      await services.catch(() => undefined); // nothing goes on starting under a failed lab
      throw error;
    }
    if (rest.length > 0) await phase('services', () => services);
  });
}

/**
 * The runtime's preparation of the lab: the node binaries its kinds run that are built on demand
 * (reglab-ldk), then the runtime's own (docker: the images of its kinds built or found up to date),
 * the lines of their long work sent as `image` events; with `dataRestored`, the services whose data
 * a snapshot's restore writes over. A cluster's nodes run images built beforehand (`reglab images
 * build`), never this machine's binaries: a kubernetes lab builds none (a control plane in a pod
 * could not).
 */
export async function prepareRuntime(
  lab: LabState,
  options: LabDriverOptions,
  dataRestored?: readonly string[],
): Promise<void> {
  const kinds = Object.values(lab.services).map((service) => service.kind);
  const onProgress = (line: string) => options.onEvent({ type: 'image', lab: lab.name, line });
  if (options.runtimeOptions.runtime.name !== 'kubernetes')
    for (const build of binaryBuildsFor(kinds)) await ensureNodeBinary(build, onProgress);
  await options.runtimeOptions.runtime.prepareLab(lab, imageRecipesFor(kinds, 'local'), {
    dataRestored,
    onProgress,
    services: lab.services,
  });
}

/**
 * A kind whose image cannot be had fails its services, each saying why, before the lab fails
 * (nothing has started yet: the user sees which service cannot run, not a lab failed with every
 * service pending). Rethrows the error.
 */
async function failServicesWithoutImage(
  session: LabSession,
  options: LabDriverOptions,
  error: unknown,
): Promise<never> {
  if (error instanceof ImageUnavailableError) {
    for (const service of Object.values(session.lab.services).filter((candidate) => candidate.kind === error.kind)) {
      setStatus(service, 'failed', error.message);
      options.onEvent(serviceEvent(session, service));
    }
    await options.persist();
  }
  throw error;
}

/**
 * Gives every service its host ports: those lab.yaml fixes (which must be free), else the
 * `preferred` ones (a restored snapshot's) when free, else free ones.
 */
export async function allocateHostPorts(
  lab: LabState,
  preferred: Record<string, Record<string, number>> = {},
): Promise<void> {
  const requested = requestedHostPorts(lab.spec);
  const taken = new Set<number>();
  for (const service of Object.values(lab.services)) {
    for (const portName of Object.keys(service.containerPorts)) {
      const fixed = requested[service.name]?.[portName];
      if (fixed !== undefined && (await isListening(fixed))) {
        throw new Error(`port ${fixed} asked for ${service.name} in lab.yaml is already in use on this machine`);
      }
      const wished = preferred[service.name]?.[portName];
      let port = fixed ?? (wished !== undefined && !(await isListening(wished)) ? wished : undefined);
      while (port === undefined || taken.has(port)) port = await freePort();
      taken.add(port);
      service.hostPorts[portName] = port;
    }
  }
}

/**
 * Funds every node in one transaction from the lab wallet: a node gets one output per channel it
 * opens plus one, so its channel openings need no unconfirmed change.
 */
async function fundNodes(session: LabSession): Promise<void> {
  const spec = session.lab.spec;
  const funded = spec.nodes.filter((node) => node.funding_sat > 0);
  const payouts = [];
  for (const node of funded) {
    const outputs = 1 + spec.channels.filter((channel) => channel.from === node.name).length;
    const wallet = session.node(node.name);
    for (let i = 0; i < outputs; i++)
      payouts.push({ address: await wallet.newAddress(), amountSat: BigInt(Math.floor(node.funding_sat / outputs)) });
  }
  if (payouts.length === 0) return;
  await session.labWallet.send(payouts);
  const { height } = await mineBlocks(session, 1);
  await Promise.all(
    funded.map(async (node) => {
      const wallet = session.node(node.name);
      await wallet.waitSynced(height);
      await waitFor(async () => (await wallet.onchainBalance()).confirmedSat > 0, {
        timeoutMs: 60_000,
        intervalMs: 100,
        what: `${node.name} to see its funding confirmed`,
      });
    }),
  );
}

/** lnd announces a channel once it has 6 confirmations (fixed in its funding manager). */
const ANNOUNCEMENT_CONFIRMATIONS = 6;

/**
 * Opens lab.yaml's channels all at once, confirms and announces them in one burst of blocks, and
 * waits until each node has its channels active and can route over every declared channel.
 */
async function openDeclaredChannels(session: LabSession): Promise<void> {
  const channels = session.lab.spec.channels;
  const opened = await Promise.all(
    channels.map((channel) =>
      openChannelBetween(session, {
        from: channel.from,
        to: channel.to,
        capacitySat: channel.capacity_sat,
        pushSat: channel.push_sat,
      }),
    ),
  );
  await mineBlocks(session, ANNOUNCEMENT_CONFIRMATIONS);
  const channelsOf = new Map<string, string[]>();
  channels.forEach((channel, index) => {
    for (const node of [channel.from, channel.to])
      channelsOf.set(node, [...(channelsOf.get(node) ?? []), opened[index].fundingTxid]);
  });
  await Promise.all(
    [...channelsOf].map(([node, active]) => waitNodeChannels(session, node, { active, routable: channels.length })),
  );
}
