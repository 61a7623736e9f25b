// A control plane started in-process on a temp home, with a lab brought up through its API: what
// the control-plane, scenario and dashboard tests drive. Stopped (lab down, home removed) by stop().
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startControlPlane,
  type ControlPlaneOptions,
  type RunningControlPlane,
} from '../../control-plane/src/daemon.js';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { waitFor } from '../../lib/wait.js';

export interface ApiAnswer {
  status: number;
  /** The API's JSON (or text), as a test reads it. */
  body: any;
}

export interface TestControlPlane {
  plane: RunningControlPlane;
  home: string;
  call: ApiCall;
  /** Restarts the control plane on the same home (labs keep running). */
  restart(options?: ControlPlaneOptions): Promise<void>;
  stop(): Promise<void>;
}

/** The services of the default lab (defaultLabYaml), in name order. */
export const DEFAULT_LAB_SERVICES = [
  'alice',
  'bob',
  'carol',
  'chain',
  'chain-adapter',
  'faucet',
  'indexer',
  'postgres',
  'redis',
  'wallet-server',
];

/** The repository's default lab.yaml under another name, so a test lab cannot meet a user's lab. */
export function defaultLabYaml(name: string): string {
  return readFileSync('lab.yaml', 'utf8').replace(/^name: default$/m, `name: ${name}`);
}

/** One call to the API of the control plane at `url()` (read at each call: a restarted one may listen elsewhere). */
export type ApiCall = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<ApiAnswer>;

export function apiCaller(url: () => string): ApiCall {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
    };
  };
}

/**
 * The default lab's nodes and channels (alice -> bob -> carol on lnd) with its wallet server on alice
 * (`walletServer`: its settings in lab.yaml), but no indexer, faucet nor chain adapter: for a file
 * that needs a lab of its own and uses no more of the default one.
 */
export function walletServerLineLab(name: string, walletServer = '{ node: alice }'): string {
  return `name: ${name}
indexer: { enabled: false }
nodes:
  - { name: alice, kind: lnd, funding_sat: 20000000 }
  - { name: bob, kind: lnd, funding_sat: 20000000 }
  - { name: carol, kind: lnd, funding_sat: 20000000 }
channels:
  - { from: alice, to: bob, capacity_sat: 5000000 }
  - { from: bob, to: carol, capacity_sat: 5000000 }
services:
  wallet-server: ${walletServer}
`;
}

export async function startTestControlPlane(options: ControlPlaneOptions = {}): Promise<TestControlPlane> {
  const home = mkdtempSync(join(tmpdir(), 'reglab-home-'));
  chmodSync(home, 0o755);
  let plane = await startControlPlane({ home, ...options });
  const call = apiCaller(() => plane.url);
  return {
    get plane() {
      return plane;
    },
    home,
    call,
    async restart(restartOptions = {}) {
      await plane.stop();
      plane = await startControlPlane({ home, ...options, ...restartOptions });
    },
    async stop() {
      for (const lab of (await call('GET', '/labs')).body.labs ?? [])
        await call(
          'DELETE',
          `/labs/${lab.name}`,
          undefined,
          plane.token ? { authorization: `Bearer ${plane.token}` } : {},
        ).catch(() => undefined);
      await plane.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Posts a lab and waits until it is ready (or throws with its error). */
export async function bringUpLab(
  cp: Pick<TestControlPlane, 'call'>,
  yaml: string,
  name: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const created = await cp.call('POST', '/labs', { yaml }, headers);
  if (created.status !== 202) throw new Error(`POST /labs: ${created.status} ${JSON.stringify(created.body)}`);
  let failure: string | undefined;
  await waitFor(
    async () => {
      const { body } = await cp.call('GET', `/labs/${name}`);
      if (body.status === 'failed') failure = body.error ?? 'failed';
      return failure !== undefined || body.status === 'ready';
    },
    { timeoutMs: 180_000, what: `lab ${name} to be ready` },
  );
  if (failure !== undefined) throw new Error(`lab ${name} failed to come up: ${failure}`);
}

/** The pid of a service of a process lab, as the control plane recorded it. */
export function pidOf(cp: TestControlPlane, lab: string, service: string): number {
  const handle = cp.plane.manager.get(lab).services[service].handle;
  if (handle?.runtime !== 'process') throw new Error(`${service} runs no process`);
  return handle.pid;
}

/** Collects a lab's server-sent events from now on, until stop(). */
export function collectEvents(url: string): { events: LabEvent[]; stop(): void } {
  const events: LabEvent[] = [];
  const controller = new AbortController();
  void (async () => {
    const response = await fetch(url, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (data) events.push(JSON.parse(data.slice(6)) as LabEvent);
      }
    }
  })().catch(() => undefined);
  return { events, stop: () => controller.abort() };
}
