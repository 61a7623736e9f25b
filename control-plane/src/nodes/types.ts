// The contract of a node kind: one folder per kind implements it, registry.ts lists them.
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';
import type { YamlPath } from '../../../lib/yaml-problems.js';
import type { ImageRecipe } from '../images/types.js';
import type { OnDemandBuild } from './binary-build.js';
import type { ChainJournal } from '../lab/chain-journal.js';
import type { LabState, ServiceState } from '../lab/state.js';
import type { LaunchSpec, Placement, Runtime } from '../runtimes/types.js';
import type { LabSpec } from '../spec/types.js';
import type { LabNode } from './node.js';
import type { ServiceKind } from './registry.js';

/** Secrets the lab collects as services come up (certificates, macaroons), by service. */
export interface CredentialStore {
  /** Stores a service's secrets; connections made from earlier ones are remade when they change. */
  set(service: string, values: Record<string, string>): void;
  get(service: string): Record<string, string> | undefined;
  /** One value, or an error saying it is not known yet. */
  require(service: string, key: string): string;
}

/** What a kind sees of its lab while it launches, probes and describes one of its services. */
export interface LabAccess {
  readonly lab: LabState;
  readonly runtime: Runtime;
  /** How `service` sees the lab's other services (depends on the runtime). */
  placementFor(service: string): Placement;
  /** How this machine reaches the lab's services. */
  readonly host: Placement;
  readonly chain: RpcChainDriver;
  /** The lab's blocks as they were made: what a restarted chain node is given back. */
  readonly chainJournal: ChainJournal;
  readonly credentials: CredentialStore;
  /** The lab's handle on a node of nodes[]. */
  node(name: string): LabNode;
  /** Mines blocks to the lab wallet; returns the new height. */
  mine(blocks: number): Promise<{ height: number }>;
  /** The environment a lab service uses to reach Lightning node `name` from `placement`. */
  clientEnvOf(name: string, placement: Placement): Record<string, string>;
  /** The control plane's URL as the lab's services reach it, when a control plane runs the lab. */
  readonly controlPlaneUrl?: string;
}

/** What `reglab connect-info` prints: the URIs and URLs first, by name, then a few words on what takes which. */
export interface ConnectInfo {
  /** lndconnect, lndconnectRest, api, lnurl...: what a tool is given. */
  uris: Record<string, string>;
  /** Which tools take which URI, and anything else worth knowing to use them. */
  notes: string[];
}

/** A connection a service opens to another service of the lab on its own: a link of the lab's network. */
export interface Dial {
  service: string;
  port: string;
}

export interface KindDefinition {
  /** Port names, each with the port it listens on inside a container. */
  ports: Record<string, number>;
  /**
   * The image recipe that runs this kind in the docker runtime (local flavour; upstream if it differs):
   * a shared one (images/recipes.ts) or the kind's own, which the catalog takes from here.
   */
  image: ImageRecipe;
  upstreamImage?: ImageRecipe;
  /** Kinds of nodes[]: the settings of a node of this kind beyond name, kind, funding and restart, by key, as JSON schemas. */
  nodeSettings?: Record<string, object>;
  /**
   * lab.yaml's rules of this kind beyond its schema, which spec/parse.ts asks of every node of the kind
   * (`entry.path`: ['nodes', index]) and of its lab service (['services', name]): the problems found,
   * each at the path it is about.
   */
  validate?(entry: SpecEntry, check: SpecCheck): SpecProblem[];
  /** The node binary it runs when setup.sh does not build it: built the first time a lab needs it. */
  binaryBuild?: OnDemandBuild;
  /** What the lab's users reach (the wallet server, the faucet...): open to the network when the
   * control plane is (a workshop), on loopback otherwise. */
  public?: boolean;
  /** Keeps nothing in its data folder (its state is in Postgres and Redis): a cluster gives it no volume. */
  stateless?: boolean;
  /** The signal that asks for a clean, prompt shutdown, when not SIGTERM (PostgreSQL: SIGINT). */
  stopSignal?: NodeJS.Signals;
  /**
   * Stopped with its stop signal even when its data is about to be replaced (a reset), where other kinds are killed
   * (see discardSignalOf).
   */
  cleanStopOnly?: boolean;
  /** Services that must be ready before this one starts. */
  dependsOn(name: string, spec: LabSpec): string[];
  /**
   * The services it connects to by itself (its chain backend, its Lightning peers): in a lab with
   * network faults each of these links goes through a proxy of its own (network/links.ts).
   */
  dials?(name: string, spec: LabSpec): Dial[];
  /** What to run, from lab.yaml, the credentials gathered so far and the service's placement. */
  launch(access: LabAccess, service: ServiceState): LaunchSpec;
  /** Throws or answers false while not ready; collects what other services need from it (certificates). */
  probe(access: LabAccess, service: ServiceState): Promise<boolean>;
  /**
   * What the supervisor checks on a running service, cheaper than `probe` (no files read again); `probe` when absent.
   */
  health?(access: LabAccess, service: ServiceState): Promise<boolean>;
  /** What status shows: URLs, files, a pubkey. Never secrets. */
  describe(access: LabAccess, service: ServiceState): Promise<Record<string, string>>;
  /** The secrets a developer copies: macaroons, certificates, RPC passwords, URLs with credentials. */
  credentials(access: LabAccess, service: ServiceState): Promise<Record<string, string>>;
  /**
   * What a wallet app or tool takes to reach the service (an lndconnect URI, an API's URL, an LNURL):
   * `reglab connect-info`. Secret where it carries credentials. `user` names one of its users, for
   * kinds whose links are per user (the wallet server's LNURL).
   */
  connectInfo?(access: LabAccess, service: ServiceState, options: { user?: string }): Promise<ConnectInfo>;
  /** The port whose HTTP server answers GET /metrics in Prometheus' format, for kinds that serve one. */
  metricsPort?: string;
  /** Kinds of nodes[]: the lab's handle on one of its nodes. */
  node?(access: LabAccess, name: string): LabNode;
  /** Kinds of nodes[] whose node holds RGB assets (`node()` is an AssetHolder): lab.yaml's issuers and holders. */
  holdsAssets?: true;
  /**
   * Set-up each time the service has started and answers, before it counts as ready (RLN: init and unlock; the chain
   * node: the lab's blocks). May answer what the start found that a user should hear of (an LDK node's channels
   * force-closed as it started), told with the event of its being ready.
   */
  initialise?(access: LabAccess, name: string): Promise<string | undefined | void>;
  /** Kinds of nodes[]: set-up once its bring-up funding is confirmed (RLN: colored UTXOs). */
  afterFunding?(access: LabAccess, name: string): Promise<void>;
  /**
   * Writes what the service holds only in memory to its data folder before it is stopped for a snapshot (Redis: SAVE).
   */
  flush?(access: LabAccess, service: ServiceState): Promise<void>;
  /** Lightning kinds: the environment a lab service (the wallet server) uses to reach the node. */
  clientEnv?(access: LabAccess, name: string, placement: Placement): Record<string, string>;
  /**
   * Chain kinds: calls `onChange` as the node connects or disconnects a block, and each time the
   * watch starts hearing of every block again (what came before it may have been missed); answers
   * how to stop. The supervisor asks the node every second otherwise.
   */
  watchBlocks?(access: LabAccess, onChange: () => void): () => void;
}

/** A node or lab service of lab.yaml, as its kind's rules are asked of it. */
export interface SpecEntry {
  name: string;
  path: YamlPath;
}

/** What a kind's rules see: lab.yaml as written, defaults applied, and the registry's other kinds. */
export interface SpecCheck {
  lab: Pick<LabSpec, 'runtime' | 'indexer' | 'nodes' | 'channels' | 'services'>;
  kindOf(kind: ServiceKind): KindDefinition;
  /** The kinds of nodes[] that `has` says yes of. */
  nodeKinds(has: (kind: KindDefinition) => boolean): string[];
}

export interface SpecProblem {
  path: YamlPath;
  message: string;
}

/** The signal that ends a service of this kind whose data is about to be replaced (a reset). */
export const discardSignalOf = (kind: Pick<KindDefinition, 'cleanStopOnly' | 'stopSignal'>): NodeJS.Signals =>
  kind.cleanStopOnly ? (kind.stopSignal ?? 'SIGTERM') : 'SIGKILL';
