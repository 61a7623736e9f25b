import type { LaunchSpec, ServiceKind } from '../kinds/types.js';

/** Where a running service lives: a process group or a container. Stored in the lab state. */
export type RuntimeHandle = { runtime: 'process'; pid: number } | { runtime: 'docker'; containerId: string };

/** What a runtime must do for the planner; the planner never knows which runtime it drives. */
export interface Runtime {
  readonly name: 'process' | 'docker';
  /** Prepares lab-wide resources (process: the lab folder; docker: the lab network). */
  prepareLab(lab: LabHandleInfo): Promise<void>;
  /** Starts one service; returns where it runs. Must not wait for readiness (the planner probes). */
  start(service: StartRequest): Promise<RuntimeHandle>;
  stop(handle: RuntimeHandle, stopSignal?: NodeJS.Signals): Promise<void>;
  isAlive(handle: RuntimeHandle): Promise<boolean>;
  /** A file a service wrote in its data folder (a certificate, a macaroon), by its path inside that folder. */
  readServiceFile(service: ServiceLocation, relativePath: string): Promise<Buffer>;
  /** The last `lines` lines of a service's output. */
  logs(service: ServiceLocation, handle: RuntimeHandle | undefined, lines: number): Promise<string>;
  /** Removes lab-wide resources (docker: network, and volumes when asked). */
  removeLab(lab: LabHandleInfo, options: { volumes: boolean }): Promise<void>;
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
  /** The docker runtime picks the image, container ports and labels by kind; the process runtime ignores it. */
  kind: ServiceKind;
  launch: LaunchSpec;
  /** Host ports to publish (docker) or that the process listens on, by port name. */
  hostPorts: Record<string, number>;
}
