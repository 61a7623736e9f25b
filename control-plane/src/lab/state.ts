import type { ServiceKind } from '../kinds/types.js';
import type { RuntimeHandle } from '../runtimes/types.js';
import type { LabSpec } from '../spec/types.js';

export type ServiceStatus = 'pending' | 'starting' | 'ready' | 'failed' | 'stopped';
/** `degraded`: a service of a lab that was ready no longer runs (found when the control plane re-attaches). */
export type LabStatus = 'starting' | 'ready' | 'degraded' | 'failed' | 'stopping' | 'stopped';

export interface ServiceState {
  name: string;
  kind: ServiceKind;
  dependsOn: string[];
  status: ServiceStatus;
  handle?: RuntimeHandle;
  /** Host ports by port name: what a user on this machine connects to. */
  hostPorts: Record<string, number>;
  /** What a user needs to reach the service: URLs, a node's pubkey, credential files. */
  info: Record<string, string>;
  error?: string;
}

/** Each service's host ports by port name, by service name. */
export function hostPortsByService(lab: LabState): Record<string, Record<string, number>> {
  return Object.fromEntries(Object.values(lab.services).map((service) => [service.name, service.hostPorts]));
}

/** Lab credentials, kept in the state file (mode 0600): a lab holds test coins only. */
export interface LabSecrets {
  chainRpcUser: string;
  chainRpcPassword: string;
  labWalletKeyHex: string;
  walletServerTokenSecret: string;
  /** The password of the lab's RLN nodes' wallets. */
  rlnPassword: string;
}

export interface LabState {
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
}
