/** Every kind of service a lab can run. */
export type ServiceKind =
  | 'btcd'
  | 'bitcoind'
  | 'lnd'
  | 'rln'
  | 'postgres'
  | 'redis'
  | 'indexer'
  | 'electrs'
  | 'wallet-server'
  | 'faucet'
  | 'chain-adapter';

/** What to run, independent of the runtime (a process runtime finds the binary; docker, the image). */
export type Program =
  | { type: 'node-binary'; name: 'btcd' | 'lnd' }
  | { type: 'system'; name: 'postgres' | 'redis-server' }
  /** One of the project's TypeScript services, by its compiled entry point under dist/. */
  | { type: 'service'; entry: string }
  /** A program that exists only as a container image (the image's entry point runs it). */
  | { type: 'image'; name: 'rln' };

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
}
