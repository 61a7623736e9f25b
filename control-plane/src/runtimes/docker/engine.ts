import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { unavailable } from '../../../../lib/errors.js';
import { ENGINE_UNAVAILABLE } from '../types.js';

/** A Docker Engine API that answered a ping: Docker itself or Podman's compatible service. */
export interface Engine {
  docker: Docker;
  /** Where it was found, as a DOCKER_HOST-style address (for messages). */
  address: string;
}

export const WELL_KNOWN_SOCKETS = ['unix:///var/run/docker.sock', 'unix:///run/podman/podman.sock'];

export interface DiscoveryOptions {
  env?: NodeJS.ProcessEnv;
  /** The sockets tried after DOCKER_HOST (WELL_KNOWN_SOCKETS unless given). */
  sockets?: string[];
  timeoutMs?: number;
}

/** The addresses tried, in order: DOCKER_HOST, the usual Docker and Podman sockets, rootless Podman's. */
export function engineCandidates(options: DiscoveryOptions = {}): string[] {
  const env = options.env ?? process.env;
  const candidates: string[] = [];
  if (env.DOCKER_HOST) candidates.push(env.DOCKER_HOST);
  candidates.push(...(options.sockets ?? WELL_KNOWN_SOCKETS));
  if (env.XDG_RUNTIME_DIR) candidates.push(`unix://${join(env.XDG_RUNTIME_DIR, 'podman', 'podman.sock')}`);
  return [...new Set(candidates)];
}

const START_HINT =
  "Start Podman's Docker-compatible service as root with `scripts/podman-setup.sh` " +
  '(it listens on unix:///run/podman/podman.sock), or point DOCKER_HOST at a running Docker engine.';

/** Failures to reach the engine at all: nothing listens on its address, or its socket is gone. */
const UNREACHED = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH']);
const unreached = (error: unknown) => {
  const { code, syscall } = (error ?? {}) as { code?: string; syscall?: string };
  return syscall === 'connect' && code !== undefined && UNREACHED.has(code);
};

/**
 * A client for address; dockerode is loaded on first use (memory a control plane of process labs
 * does not need: bench:memory). A call that cannot reach the engine (stopped after it was found) fails with
 * ENGINE_UNAVAILABLE (503) and how to start it, not a bare `connect ECONNREFUSED`.
 */
export async function dockerClient(address: string): Promise<Docker> {
  const { default: Docker } = await import('dockerode');
  const docker = address.startsWith('unix://')
    ? new Docker({ socketPath: address.slice('unix://'.length) })
    : tcpClient(Docker, address);
  wrapCalls(docker, (error) =>
    unreached(error)
      ? unavailable(
          ENGINE_UNAVAILABLE,
          `the container engine at ${address} does not answer (${(error as Error).message}). ${START_HINT}`,
        )
      : error,
  );
  return docker;
}

/** Calls `onCall` with the outcome of each call to the engine as it ends: its error, or undefined. */
export function onEachCall(docker: Docker, onCall: (error: unknown) => void): void {
  wrapCalls(docker, (error) => {
    onCall(error);
    return error;
  });
}

type Dial = (options: unknown, callback: (error: unknown, result?: unknown) => void) => unknown;

/** Every call of dockerode's goes through its modem's dial: `outcome` sees, and may replace, each one's error. */
function wrapCalls(docker: Docker, outcome: (error: unknown) => unknown): void {
  const modem = docker.modem as { dial: Dial };
  const dial = modem.dial.bind(modem);
  modem.dial = (options, callback) => dial(options, (error, result) => callback(outcome(error), result));
}

function tcpClient(Client: typeof Docker, address: string): Docker {
  const url = new URL(address.replace(/^tcp:/, 'http:'));
  return new Client({
    host: url.hostname,
    port: Number(url.port || 2375),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
  });
}

async function answers(docker: Docker, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      docker.ping().then(
        () => true as const,
        () => false as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Finds a Docker Engine API that answers. DOCKER_HOST, when set, is tried first but does not
 * stop the search, so a stale value still finds the local Podman socket.
 */
export async function discoverEngine(options: DiscoveryOptions = {}): Promise<Engine> {
  const tried: string[] = [];
  for (const address of engineCandidates(options)) {
    if (address.startsWith('unix://') && !existsSync(address.slice('unix://'.length))) {
      tried.push(`${address} (no socket)`);
      continue;
    }
    const docker = await dockerClient(address);
    if (await answers(docker, options.timeoutMs ?? 3_000)) return { docker, address };
    tried.push(`${address} (no answer)`);
  }
  throw unavailable(ENGINE_UNAVAILABLE, `no Docker Engine API answers (tried ${tried.join(', ')}). ${START_HINT}`);
}

/**
 * Whether the engine at `address` runs as root, told by who owns its socket (a rootless engine's
 * is its user's): undefined when that says nothing (a TCP address, a socket gone). Cheaper than
 * the engine's /info, which Podman answers only after running package queries, on every cold up.
 */
export async function socketOwnedByRoot(address: string): Promise<boolean | undefined> {
  if (!address.startsWith('unix://')) return undefined;
  const owner = await stat(address.slice('unix://'.length)).then(
    (socket) => socket.uid,
    () => undefined,
  );
  return owner === undefined ? undefined : owner === 0;
}
