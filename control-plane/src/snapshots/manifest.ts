import type { LabSecrets, LabState } from '../lab/state.js';
import type { ServiceKind } from '../nodes/registry.js';

/**
 * Bumped when what a snapshot holds changes; a snapshot of another format is refused. 2: the lab's assets. 3: the lab
 * Redis's append-only file, which it loads instead of dump.rdb.
 */
export const SNAPSHOT_FORMAT = 3;

/** snapshot.json: what a lab is restored from, next to its services' data. Holds the lab's secrets. */
export interface SnapshotManifest {
  format: number;
  name: string;
  createdAt: string;
  lab: string;
  runtime: LabState['runtime'];
  /** lab.yaml as the lab was brought up from it. */
  specText: string;
  /** The chain RPC password, the lab wallet's key, the wallet server's token secret…: restored as they were. */
  secrets: LabSecrets;
  /** Each service's kind and host ports: a restored lab takes the same ports when they are free. */
  services: Record<string, { kind: ServiceKind; hostPorts: Record<string, number> }>;
  /**
   * The lab's RGB assets, ticker -> asset id: what the nodes' wallets hold is named by them (the faucet's asset among
   * them).
   */
  assets: Record<string, string>;
  /** The chain's height when the snapshot was taken. */
  height: number;
  /** Bytes of service data the snapshot holds. */
  bytes: number;
}

export function manifestOf(lab: LabState, name: string, height: number, bytes: number): SnapshotManifest {
  return {
    format: SNAPSHOT_FORMAT,
    name,
    createdAt: new Date().toISOString(),
    lab: lab.name,
    runtime: lab.runtime,
    specText: lab.specText,
    secrets: lab.secrets,
    services: Object.fromEntries(
      Object.values(lab.services).map((service) => [
        service.name,
        { kind: service.kind, hostPorts: service.hostPorts },
      ]),
    ),
    assets: { ...lab.assets },
    height,
    bytes,
  };
}

/** What a lab restored from `manifest` takes back besides its services' data: its secrets and its assets' names. */
export function restoreLabRecord(lab: LabState, manifest: SnapshotManifest): void {
  lab.secrets = manifest.secrets;
  lab.assets = { ...manifest.assets };
}

/** What the API and `reglab snapshot list` show: no secrets. */
export function describeSnapshot(manifest: SnapshotManifest) {
  return {
    name: manifest.name,
    lab: manifest.lab,
    runtime: manifest.runtime,
    createdAt: manifest.createdAt,
    height: manifest.height,
    bytes: manifest.bytes,
    services: Object.keys(manifest.services),
  };
}
