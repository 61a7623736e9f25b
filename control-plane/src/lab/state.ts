import type { FeeSpike } from '../../../lib/chain/fee-policy.js';
import type { NetworkState } from '../network/model.js';
import type { ServiceKind } from '../nodes/registry.js';
import type { LabLayout, RuntimeHandle } from '../runtimes/types.js';
import type { LabSpec, RestartPolicy } from '../spec/types.js';

/**
 * `unhealthy`: runs but fails its readiness probe. `waiting`: a service it depends on is not ready
 * (lnd while its chain node is down); it is ready again once that one is, started again then if it
 * ended meanwhile. `restarting`: the supervisor is starting it again. `stopped`: stopped on purpose
 * (reglab stop, or the lab going down), never restarted.
 */
export type ServiceStatus =
  | 'pending'
  | 'starting'
  | 'ready'
  | 'unhealthy'
  | 'waiting'
  | 'restarting'
  | 'failed'
  | 'stopped';
/** `degraded`: a service of a lab that was ready is not ready now. */
export type LabStatus = 'starting' | 'ready' | 'degraded' | 'failed' | 'stopping' | 'stopped';

/** The statuses of a service whose process runs, which the supervisor watches. */
export const RUNNING_STATUSES: ReadonlySet<ServiceStatus> = new Set(['ready', 'unhealthy', 'waiting']);

export interface ServiceState {
  name: string;
  kind: ServiceKind;
  dependsOn: string[];
  status: ServiceStatus;
  /** When the status last changed (ISO time). */
  since: string;
  handle?: RuntimeHandle;
  /** Host ports by port name: what a user on this machine connects to. */
  hostPorts: Record<string, number>;
  /** The port each name listens on inside a container (the kind's). */
  containerPorts: Record<string, number>;
  /** Reachable from the network (a lab service of a control plane open to the network). */
  public?: boolean;
  /** What a user needs to reach the service: URLs, a node's pubkey, credential files. Never secrets. */
  info: Record<string, string>;
  /** Why it is not ready, with the last lines of its log. */
  error?: string;
  restartPolicy: RestartPolicy;
  /** Restarts done by the supervisor, and when (ISO times), for its limit. */
  restarts: number;
  restartTimes: string[];
}

/** Lab credentials, kept in the state file (mode 0600): a lab holds test coins only. */
export interface LabSecrets {
  chainRpcUser: string;
  chainRpcPassword: string;
  labWalletKeyHex: string;
  walletServerTokenSecret: string;
  /** The password of the lab's RLN nodes' wallets. */
  rlnPassword: string;
  /**
   * This lab's own token: on a control plane open to the network, it grants the actions and
   * secrets of this lab only (a workshop hands each attendee theirs). Labs saved before it have none.
   */
  accessToken?: string;
}

export interface LabState extends LabLayout {
  name: string;
  spec: LabSpec;
  specText: string;
  dir: string;
  runtime: LabSpec['runtime'];
  status: LabStatus;
  createdAt: string;
  error?: string;
  secrets: LabSecrets;
  services: Record<string, ServiceState>;
  /** How long each bring-up phase took, in order. */
  phases: { name: string; ms: number }[];
  /** The lab's RGB assets: ticker (the lab's name of each) -> asset id. */
  assets?: Record<string, string>;
  /** The snapshot the lab was restored from or last saved: what `reglab reset` goes back to. */
  snapshot?: string;
  /** What the control plane read from the services (certificates, macaroons), by service: lab/credentials.ts. */
  credentials?: Record<string, Record<string, string>>;
  /** A lab with network faults (lab.yaml network.faults): its links and the faults set on them. */
  network?: NetworkState;
  /** The fee spike set on the lab (reglab fees spike), kept after it ended until the next. */
  feeSpike?: FeeSpike;
}

export function setStatus(service: ServiceState, status: ServiceStatus, error?: string): void {
  service.status = status;
  service.since = new Date().toISOString();
  service.error = error;
}

/** ready when every service is; degraded when one that was up is not. */
export function labStatusFromServices(lab: LabState): LabStatus {
  return Object.values(lab.services).every((service) => service.status === 'ready') ? 'ready' : 'degraded';
}

/** What a degraded lab says: each service that is not ready, with its status ("chain stopped, alice waiting"). */
export function servicesDown(lab: LabState): string | undefined {
  const down = Object.values(lab.services)
    .filter((service) => service.status !== 'ready')
    .map((service) => `${service.name} ${service.status}`);
  return down.length > 0 ? down.join(', ') : undefined;
}

/** The services `service` depends on that are not ready now. */
export function dependenciesDown(lab: LabState, service: ServiceState): ServiceState[] {
  return service.dependsOn.flatMap((name) => {
    const dependency = lab.services[name];
    return dependency && dependency.status !== 'ready' ? [dependency] : [];
  });
}

/** "waiting for chain (btcd), which is stopped": why a service waits, from the dependencies that are down. */
export function waitingFor(down: ServiceState[]): string {
  return `waiting for ${down.map((dependency) => `${dependency.name} (${dependency.kind}), which is ${dependency.status}`).join(', and for ')}`;
}
