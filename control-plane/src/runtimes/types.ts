// What a runtime runs and how services see each other. Runtimes know nothing of labs' specs or of
// node kinds: they get a LaunchSpec, the ports to publish and the image to use.

/** What to run, independent of the runtime (a process runtime finds the binary; docker, the image). */
export type Program =
  | { type: 'node-binary'; name: string }
  | { type: 'system'; name: 'postgres' | 'redis-server' }
  /** One of the project's TypeScript services, by its compiled entry point under dist/. */
  | {
      type: 'service';
      entry: string /** Node's own flags, before the entry point (some, like V8's, are refused in NODE_OPTIONS). */;
      nodeFlags: string[];
    }
  /** A program that exists only as a container image (the image's entry point runs it). */
  | { type: 'image'; name: string };

export interface LaunchSpec {
  program: Program;
  args: string[];
  env: Record<string, string>;
  stopSignal?: NodeJS.Signals;
  /** System user the process must run as (PostgreSQL refuses root). Process runtime only. */
  user?: string;
}

/**
 * How one service sees the world, given by the runtime: the process runtime puts everything on
 * 127.0.0.1 with free host ports; the docker runtime gives each service fixed ports on its
 * container and reaches others by container name.
 */
export interface Placement {
  listenHost: string;
  /** The port this service listens on, by port name. */
  port(name: string): number;
  /** This service's data folder as the service sees it. */
  dataDir: string;
  /** "host:port" at which this service reaches `service`'s named port. */
  reach(service: string, portName: string): string;
  /**
   * Where connections from this machine (a browser on it, a reverse proxy in front of the lab) come
   * from, as this service sees them: the loopback address for a process; the lab network's gateway
   * for a docker container, since the engine rewrites the source of what reaches a port published on
   * 127.0.0.1 (docs/docker-runtime.md, Client addresses); the pod's loopback for a kubernetes pod,
   * where the kubelet's port-forward connects.
   */
  hostPeer: 'loopback' | 'gateway';
}

/** What placements need to know of a lab: its folder and each service's ports. */
export interface LabLayout {
  name: string;
  dir: string;
  services: Record<
    string,
    { hostPorts: Record<string, number>; containerPorts: Record<string, number>; public?: boolean }
  >;
}

/**
 * Where a running service lives: a process group, a container, or one run of a pod's container
 * (the kubelet runs it again in the same pod after a crash: `restarts` is the container's restart
 * count during this run). Stored in the lab state.
 */
export type RuntimeHandle =
  | { runtime: 'process'; pid: number }
  | { runtime: 'docker'; containerId: string }
  | { runtime: 'kubernetes'; namespace: string; pod: string; uid: string; restarts: number };

/** How a service ended, when the runtime can tell. */
export interface ExitStatus {
  code?: number;
  signal?: string;
  /** The engine's own word for it, when it says more (kubernetes: OOMKilled, or why the container cannot start). */
  reason?: string;
  /** Kubernetes: the container's restart count when this was seen (the kubelet's). */
  restartCount?: number;
}

/** The code of the DomainError a runtime throws when its engine does not answer (Podman stopped). */
export const ENGINE_UNAVAILABLE = 'CONTAINER_ENGINE_UNAVAILABLE';

/** Whether `error`, or an error it was caused by, says the runtime's engine does not answer. */
export function isEngineUnavailable(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as { code?: unknown }).code === ENGINE_UNAVAILABLE) return true;
  }
  return false;
}

/** What a runtime last heard from its container engine: whether it answered, and since when. */
export interface EngineReach {
  /** The engine's address, once it was found. */
  address?: string;
  answering: boolean;
  /** When it began to answer, or stopped. */
  since: string;
  /** Why it does not answer, and how to start it. */
  message?: string;
}

/** The image of one kind of service (a key of prepareLab's `images`) can be neither found nor built. */
export class ImageUnavailableError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = 'ImageUnavailableError';
  }
}

export interface PrepareOptions {
  /**
   * The services whose data a snapshot's restore is about to write over: docker keeps the volumes
   * an earlier lab of this name left them, for that restore (the others are removed).
   */
  dataRestored?: readonly string[];
  /** The preparation's long work (docker: an image built, the project compiled for it), line by line. */
  onProgress?: (line: string) => void;
  /**
   * Every service the lab will run, by name (kubernetes: a Service is made for each before any pod,
   * so that each pod is told the addresses of all of them).
   */
  services?: Record<string, { kind: string; containerPorts: Record<string, number> }>;
}

/** What a runtime must do for the planner and the supervisor; neither knows which runtime it drives. */
export interface Runtime {
  readonly name: 'process' | 'docker' | 'kubernetes';
  /**
   * Its engine restarts a service that dies, by the service's restart policy (kubernetes: the
   * kubelet, by the Pod's restartPolicy): the supervisor then takes the service back where the
   * engine restarted it (start() finds it), and ends it when it gives up on it.
   */
  readonly restartsServices?: boolean;
  /**
   * Prepares lab-wide resources (process: the lab folder; docker: the lab network, and the images
   * of `images` — image recipes by kind — built before anything starts). An image that cannot be
   * had throws ImageUnavailableError naming its kind.
   */
  prepareLab(lab: LabHandleInfo, images?: Record<string, string>, options?: PrepareOptions): Promise<void>;
  /**
   * Takes back what the runtime keeps for a lab in this process, for a control plane that restarted
   * (kubernetes: the port-forwards of its host ports, its pod watch). Optional.
   */
  reattachLab?(lab: LabLayout): Promise<void>;
  /** Starts one service; returns where it runs. Must not wait for readiness (the planner probes). */
  start(service: StartRequest): Promise<RuntimeHandle>;
  /** Asks the service to stop (its stop signal), then kills it after a grace period. */
  stop(handle: RuntimeHandle, stopSignal?: NodeJS.Signals): Promise<void>;
  /** SIGKILL: no clean shutdown (a crash, for fault tests). */
  kill(handle: RuntimeHandle): Promise<void>;
  isAlive(handle: RuntimeHandle): Promise<boolean>;
  /** How a service that is no longer alive ended, when known. */
  exitStatus(handle: RuntimeHandle): Promise<ExitStatus | undefined>;
  /**
   * Calls `onExit` as soon as a service of the lab may have stopped running (docker: the engine's
   * die events), so the supervisor checks at once rather than at its next poll. Returns how to stop
   * watching. Optional: without it, polling isAlive is all the supervisor has.
   */
  watchExits?(lab: LabHandleInfo, onExit: () => void): () => void;
  /**
   * What the runtime last heard from its container engine (docker: every call to it tells),
   * undefined before its first call. Optional: the process runtime has no engine.
   */
  engineReach?(): EngineReach | undefined;
  /**
   * Throws ENGINE_UNAVAILABLE unless the runtime's container engine answers now: what takes a
   * lab's services down asks first, to be refused with nothing changed rather than left half done.
   */
  checkEngine?(): Promise<void>;
  /** A file a service wrote in its data folder (a certificate, a macaroon), by its path inside that folder. */
  readServiceFile(service: ServiceLocation, relativePath: string): Promise<Buffer>;
  /** The last `lines` lines of a service's output. */
  logs(service: ServiceLocation, handle: RuntimeHandle | undefined, lines: number): Promise<string>;
  /**
   * What a lab forgotten while the runtime's engine does not answer leaves in that engine, and how
   * it goes. Optional: the process runtime has no engine.
   */
  leftInEngine?(lab: LabHandleInfo): string;
  /**
   * Removes lab-wide resources (docker: network, and volumes when asked). Answers the containers
   * not of the lab that were on its network (a user's own test client), which were disconnected
   * from it so that it could go, by name: they are left in place.
   */
  removeLab(lab: LabHandleInfo, options: { volumes: boolean }): Promise<string[]>;
}

export interface LabHandleInfo {
  name: string;
  /** The lab's folder on the host: state, logs, process data. */
  dir: string;
}

export interface ServiceLocation {
  lab: LabHandleInfo;
  service: string;
}

export interface StartRequest extends ServiceLocation {
  /** Names the container's labels and its image (docker); the process runtime ignores it. */
  kind: string;
  /** The image recipe that runs this kind (docker only). */
  image: string;
  launch: LaunchSpec;
  /** Host ports to publish (docker) or that the process listens on, by port name. */
  hostPorts: Record<string, number>;
  /** The port each name listens on inside a container (docker only). */
  containerPorts: Record<string, number>;
  /** Publish its ports on every interface of the machine, not only on 127.0.0.1 (a workshop). */
  public?: boolean;
  /** lab.yaml's restart policy: what a runtime that restarts services itself applies (the Pod's restartPolicy). */
  restartPolicy?: 'on-failure' | 'always' | 'no';
  /** The signal that ends it when its data is about to be replaced (a reset); SIGKILL when absent. */
  discardSignal?: NodeJS.Signals;
  /**
   * Every service of the lab, this one included (docker: each gets a fixed address on the lab's
   * network, and every container finds all of them in its /etc/hosts). Without it, the engine's
   * DNS alone names them.
   */
  labServices?: string[];
  /**
   * Names of other services that resolve, in this service's container, to the address of another
   * service (name -> that service): a lab with network faults sends a node's links to its network
   * proxy under the names of the services they reach (docker only; needs `labServices`).
   */
  reroutes?: Record<string, string>;
  /**
   * Where the runtime holds starts back (a container engine takes a few at a time), those of lower
   * precedence are asked first: the services others wait for. Absent, after those that have one.
   */
  precedence?: number;
}

/** A runtime with the placements it gives: how each service, and this machine, see the lab. */
export interface RuntimeOptions {
  runtime: Runtime;
  placementFor(lab: LabLayout, service: string): Placement;
  hostPlacement(lab: LabLayout): Placement;
}
