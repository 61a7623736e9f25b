import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_PROGRAMS, programArguments } from '../../../lib/programs.js';
import { projectRoot } from '../../../lib/project-root.js';
import { builtAt, readDaemonFile, type DaemonInfo } from '../home.js';
import { LOW_RATE_NODE_FLAGS } from '../nodes/project-service.js';
import { isRunning, runsProgram } from '../runtimes/process/child.js';
import { sleep, waitFor } from '../../../lib/wait.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems?: { file: string; line: number; column: number; path: string; message: string }[],
  ) {
    super(message);
  }
}

/**
 * The API's refusal of a request its schema does not take names the field by the request part and
 * path (`body/blocks must be >= 1`): the CLI names the field alone (`blocks must be >= 1`), which is
 * the word its commands use.
 */
export const withoutSchemaPaths = (message: string): string =>
  message.replace(/\b(?:body|querystring|params|headers)\/([\w/-]+)/g, (_whole, path: string) =>
    path.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.'),
  );

/** The CLI's view of the control plane: plain HTTP calls, errors turned into ApiError. */
export class ControlPlaneClient {
  constructor(
    readonly url: string,
    /** The token of a control plane open to the network (from daemon.json). */
    private readonly token?: string,
    /** Its home folder, where the keeper that starts it again after a crash is found. */
    private readonly home?: string,
  ) {}

  private headers(json: boolean, idempotencyKey?: string): Record<string, string> {
    return {
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    };
  }

  /**
   * `signal` abandons the request (a scenario step that timed out). When the control plane ends
   * before it answers and its keeper starts it again, a request that may be sent twice (a GET, or
   * one with an `idempotencyKey`: a job queued once whatever happens) goes to the new one, which is
   * said on stderr; any other is a CONTROL_PLANE_LOST error.
   */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    options: { signal?: AbortSignal; idempotencyKey?: string } = {},
  ): Promise<T> {
    for (let asked: ControlPlaneClient = this; ; ) {
      try {
        return await asked.send<T>(method, path, body, options);
      } catch (error) {
        const resendable = method === 'GET' || options.idempotencyKey !== undefined;
        if (!(error instanceof ApiError) || error.code !== 'CONTROL_PLANE_LOST' || !resendable || !this.home)
          throw error;
        const again = await keptControlPlane(this.home);
        if (!again)
          throw new ApiError(
            503,
            'CONTROL_PLANE_LOST',
            `${error.message}, and no keeper starts it again${method === 'GET' ? '' : ': whether the job was queued is unknown'} (\`reglab status\` starts a control plane and shows the lab)`,
          );
        console.error(
          `reglab: ${error.message}; its keeper started it again, which is asked again${options.idempotencyKey ? ` for the same job (Idempotency-Key ${options.idempotencyKey})` : ''}`,
        );
        asked = again;
      }
    }
  }

  private async send<T>(
    method: string,
    path: string,
    body: unknown,
    options: { signal?: AbortSignal; idempotencyKey?: string },
  ): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: this.headers(body !== undefined, options.idempotencyKey),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    }).catch((error: unknown) => {
      if (options.signal?.aborted || !(error instanceof TypeError)) throw error;
      const cause = (error.cause as Error | undefined)?.message ?? error.message;
      throw new ApiError(
        503,
        'CONTROL_PLANE_LOST',
        `the control plane at ${this.url} ended before it answered ${method} ${path.replace(/\?.*$/, '')} (${cause})`,
      );
    });
    const text = await response.text();
    const parsed = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    if (!response.ok) {
      const error = parsed?.error ?? {};
      const message = error.message ?? String(parsed);
      throw new ApiError(
        response.status,
        error.code ?? 'error',
        error.code === 'BAD_REQUEST' ? withoutSchemaPaths(message) : message,
        error.problems,
      );
    }
    return parsed as T;
  }

  /** Reads the server-sent events of `path`, calling `onEvent` until it returns true. */
  async follow(path: string, onEvent: (event: { type: string; [key: string]: unknown }) => boolean): Promise<void> {
    const response = await fetch(`${this.url}${path}`, {
      headers: { accept: 'text/event-stream', ...this.headers(false) },
    });
    if (!response.ok || !response.body) throw new ApiError(response.status, 'error', `cannot follow ${path}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (data && onEvent(JSON.parse(data.slice(6)))) {
          await response.body.cancel().catch(() => undefined);
          return;
        }
      }
    }
  }
}

/** The daemon.json of this home folder's running control plane; none when the CLI asks one elsewhere (REGLAB_URL). */
export function readDaemonInfo(home: string): DaemonInfo | undefined {
  if (remoteUrl()) return undefined;
  const info = readDaemonFile(home);
  return info && isRunning(info.pid) ? info : undefined;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}

/**
 * A control plane that runs elsewhere, which this CLI asks instead of its state folder's: REGLAB_URL
 * (one inside a cluster, reached through `kubectl port-forward`), with REGLAB_TOKEN for actions and
 * secrets. This CLI never starts or stops it.
 */
export function remoteUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.REGLAB_URL?.replace(/\/+$/, '') || undefined;
}

async function remoteControlPlane(url: string): Promise<ControlPlaneClient> {
  if (!(await answers(url)))
    throw new ApiError(
      503,
      'CONTROL_PLANE_UNAVAILABLE',
      `the control plane at ${url} (REGLAB_URL) does not answer: start the port-forward to it (\`kubectl -n NAMESPACE port-forward service/reglab-control-plane 8080\`), or unset REGLAB_URL to use this folder's`,
    );
  return new ControlPlaneClient(url, process.env.REGLAB_TOKEN || undefined);
}

/** The running control plane of this home folder (or REGLAB_URL's), if any. */
export async function findControlPlane(home: string): Promise<ControlPlaneClient | undefined> {
  const remote = remoteUrl();
  if (remote) return remoteControlPlane(remote);
  const info = readDaemonInfo(home);
  if (!info || !(await answers(info.url))) return undefined;
  warnOfAnotherBuild(home, info);
  return new ControlPlaneClient(info.url, info.token, home);
}

let warnedOfBuild = false;

/**
 * Says once, on stderr, that the control plane runs another build of reglab than this CLI (reglab was built again since
 * it started).
 */
function warnOfAnotherBuild(home: string, info: DaemonInfo): void {
  const built = builtAt();
  if (warnedOfBuild || !info.built || !built || info.built === built) return;
  warnedOfBuild = true;
  console.error(
    `reglab: the control plane of ${home} (pid ${info.pid}, started ${info.startedAt}) runs reglab as built at ${info.built}, not this build (${built}): \`reglab down\`, then \`reglab up\`, to run this one`,
  );
}

/** The pid of the keeper (control-plane/keeper.sh) of this home folder's control plane, while it runs. */
function runningKeeper(home: string): number | undefined {
  const file = join(home, 'keeper.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8'));
  return runsProgram(pid, 'keeper.sh') ? pid : undefined;
}

/**
 * The control plane the keeper of this home folder starts again, when the last one ended without
 * its stop (a crash, kill -9): the keeper waits a second before starting it.
 */
export async function keptControlPlane(home: string): Promise<ControlPlaneClient | undefined> {
  const keeper = runningKeeper(home);
  if (keeper === undefined) return undefined;
  const keeperGone = new Error('the keeper ended');
  const found = async () => {
    const client = await findControlPlane(home);
    if (!client && !isRunning(keeper)) throw keeperGone;
    return client;
  };
  try {
    return await waitFor(found, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the control plane its keeper starts again',
      stopOn: (error) => error === keeperGone,
    });
  } catch (error) {
    if (error === keeperGone) return undefined;
    // another control plane started beside it would supervise the same labs
    throw new ApiError(
      503,
      'CONTROL_PLANE_UNAVAILABLE',
      `the control plane its keeper (pid ${keeper}) started again does not answer after 30 s: see ${join(home, 'logs', 'control-plane.log')}`,
    );
  }
}

/** The names of the labs this home folder's state holds: labs up, or that were when its control plane ended. */
export function recordedLabs(home: string): string[] {
  try {
    return Object.keys(
      (JSON.parse(readFileSync(join(home, 'state.json'), 'utf8')) as { labs?: Record<string, unknown> }).labs ?? {},
    );
  } catch {
    return [];
  }
}

/** The address the last control plane of this home folder listened on, from the daemon.json it left. */
export function lastListen(home: string): string | undefined {
  return readDaemonFile(home)?.listen;
}

/**
 * The control plane of this home folder, started in the background (listening on `listen`) under
 * its keeper when none runs. `started` says whether this call started it.
 */
export async function ensureControlPlane(
  home: string,
  listen?: string,
): Promise<ControlPlaneClient & { started?: boolean }> {
  const remote = remoteUrl();
  if (remote) {
    if (listen !== undefined)
      throw new ApiError(
        400,
        'INVALID_ARGUMENT',
        `--listen says where a control plane this CLI starts listens; REGLAB_URL names one that runs elsewhere (${remote})`,
      );
    return remoteControlPlane(remote);
  }
  const running = (await findControlPlane(home)) ?? (await keptControlPlane(home));
  if (running) {
    const current = readDaemonInfo(home)?.listen ?? '127.0.0.1';
    if (listen !== undefined && listen !== current) {
      throw new ApiError(
        409,
        'CONTROL_PLANE_RUNNING',
        `the control plane of ${home} already listens on ${current}; bring its labs down first (\`reglab down\`) to listen on ${listen}`,
      );
    }
    return running;
  }
  mkdirSync(join(home, 'logs'), { recursive: true });
  const log = openSync(join(home, 'logs', 'control-plane.log'), 'a');
  const entry = programArguments(BUNDLED_PROGRAMS.cli);
  const keeper = join(projectRoot(), 'control-plane', 'keeper.sh');
  const child = spawn(
    '/bin/sh',
    [keeper, process.execPath, ...LOW_RATE_NODE_FLAGS, ...entry, 'serve', ...(listen ? ['--listen', listen] : [])],
    { detached: true, stdio: ['ignore', log, log], env: { ...process.env, REGLAB_HOME: home } },
  );
  child.unref();
  const started = await waitFor(
    async () => {
      if (child.exitCode !== null)
        throw new Error(`the control plane exited at start (log: ${join(home, 'logs', 'control-plane.log')})`);
      return findControlPlane(home);
    },
    { timeoutMs: 30_000, intervalMs: 20, what: 'the control plane to start', stopOn: () => child.exitCode !== null },
  );
  return Object.assign(started, { started: true });
}

/**
 * Asks the control plane to stop and waits until its process, and its keeper's, are gone; one
 * elsewhere (REGLAB_URL) is left running: its own keeper (a Deployment) would only start it again.
 */
export async function stopControlPlane(home: string, client: ControlPlaneClient): Promise<void> {
  if (remoteUrl()) return;
  const info = readDaemonInfo(home);
  const keeper = runningKeeper(home);
  await client.request('POST', '/shutdown').catch(() => undefined);
  while ((info && isRunning(info.pid)) || (keeper !== undefined && isRunning(keeper))) await sleep(100);
}

/**
 * The control plane of the state folder `home`. One that ended without its stop and was not started
 * again (its keeper gone too, or the machine restarted) is started here when the state still holds
 * labs: it takes them back, restarting what of them no longer runs.
 */
export async function controlPlaneOf(home: string): Promise<ControlPlaneClient> {
  const client = (await findControlPlane(home)) ?? (await keptControlPlane(home));
  if (client) return client;
  const labs = recordedLabs(home);
  if (labs.length === 0)
    throw new ApiError(
      404,
      'NO_SUCH_LAB',
      'no lab is up here (no control plane runs for this folder): start one with `reglab up`',
    );
  console.error(
    `reglab: the control plane of ${home} was not running (its log: ${join(home, 'logs', 'control-plane.log')}); starting it again, to take back lab ${labs.join(', ')}`,
  );
  return ensureControlPlane(home, lastListen(home));
}

/** The lab to act on: `chosen` (--lab), or the only lab up. */
export async function labToActOn(client: ControlPlaneClient, chosen?: string): Promise<string> {
  if (chosen) return chosen;
  const { labs } = await client.request<{ labs: { name: string }[] }>('GET', '/labs');
  if (labs.length === 1) return labs[0].name;
  throw new ApiError(
    404,
    'NO_SUCH_LAB',
    labs.length === 0
      ? 'no lab is up: start one with `reglab up`'
      : `several labs are up (${labs.map((lab) => lab.name).join(', ')}): choose one with --lab`,
  );
}
