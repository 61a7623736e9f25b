import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLoopback } from './api/access.js';
import { buildControlPlaneApp } from './api/app.js';
import type { Builds } from './api/deps.js';
import {
  builtAt,
  daemonInfoFile,
  readDaemonFile,
  reglabHome,
  type ControlPlaneRestart,
  type DaemonInfo,
} from './home.js';
import { JobQueues } from './jobs.js';
import { LabManager } from './manager.js';
import { pingRedis, redisLaunch, redisUrl } from './nodes/redis/server.js';
import { runsProgram, startDetached, stopProcessGroup } from './runtimes/process/child.js';
import { StateStore } from './store.js';
import { freePort, isListening } from './util/ports.js';
import { waitFor } from '../../lib/wait.js';

export interface RunningControlPlane {
  url: string;
  /** Set when it listens beyond loopback. */
  token?: string;
  manager: LabManager;
  jobs: JobQueues;
  stop(): Promise<void>;
}

/**
 * The control plane: the API, the job workers, and a Redis of its own for the queues, started with
 * them (unless REGLAB_REDIS_URL names one). Labs outlive it: a restarted control plane re-attaches
 * to them.
 */
export interface ControlPlaneOptions {
  home?: string;
  port?: number;
  logger?: boolean;
  /** The address the API and the dashboard listen on: 127.0.0.1 (the default), or 0.0.0.0 for a workshop. */
  listen?: string;
  /** Required beyond loopback: actions and secrets then need it (generated when not given). */
  token?: string;
  /**
   * When the reglab it runs was built, and the one installed now (builtAt(), read at start and at each /health, when
   * absent).
   */
  builds?: Builds;
  /** Serve metrics (GET /metrics); by default unless REGLAB_METRICS is `off` (bench:metrics compares the two). */
  metrics?: boolean;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<RunningControlPlane> {
  const home = options.home ?? reglabHome();
  const listen = options.listen ?? '127.0.0.1';
  const store = new StateStore(home);
  await store.load();
  const queueRedis = queueRedisOf(home);
  const restarted = restartedBy(process.env);
  // left by a control plane that ended without its stop (which removes it)
  const previous = readDaemonFile(home);
  const port = options.port ?? (process.env.REGLAB_PORT ? Number(process.env.REGLAB_PORT) : await portOf(previous));
  // the lab's services and this machine's clients reach it on loopback whatever it listens on
  const url = `http://127.0.0.1:${port}`;
  // started again, it keeps the token the room was given
  const token = isLoopback(listen)
    ? undefined
    : (options.token ?? previous?.token ?? randomBytes(18).toString('base64url'));
  let jobs: JobQueues | undefined;
  const manager = new LabManager(
    store,
    (runtime) => (runtime === 'process' ? url : undefined),
    async (lab) => {
      if (lab.spec.mining.auto_mine_seconds > 0) await jobs?.setAutoMining(lab.name, lab.spec.mining.auto_mine_seconds);
    },
    token !== undefined,
  );
  jobs = new JobQueues(
    queueRedis.url,
    (lab) => manager.session(lab),
    (event) => manager.events.emit('event', event),
    queueRedis.startsEmpty,
  );
  // a lab that is down mines no more (its schedule lives in the queues' Redis, which outlives it)
  manager.events.on('event', (event) => {
    if (event.type === 'lab' && event.status === 'stopped')
      void jobs?.setAutoMining(event.lab, 0).catch(() => undefined);
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await manager.waitForBringUps();
      await jobs.close();
      await manager.closeSessions();
      await queueRedis.stop();
      if (existsSync(daemonInfoFile(home))) rmSync(daemonInfoFile(home));
    })());
  const builds = options.builds ?? { running: builtAt(), installed: builtAt };
  const app = await buildControlPlaneApp({
    manager,
    jobs,
    token,
    restarted,
    builds,
    logger: options.logger,
    metrics: options.metrics ?? process.env.REGLAB_METRICS !== 'off',
    shutdown: () => void stop().then(() => process.exit(0)),
  });
  if (restarted)
    app.log.warn(
      `started again by its keeper (restart ${restarted.restarts}): the last control plane ended, ${restarted.lastEnded}`,
    );
  if (previous && !restarted)
    app.log.warn(`the last control plane (pid ${previous.pid}, started ${previous.startedAt}) ended without its stop`);
  if (previous && previous.url !== url)
    app.log.warn(
      `the last control plane's port (${previous.url}) is taken: the faucets of process labs mine through it until restarted (\`reglab restart faucet\`)`,
    );
  await manager.reattachAll();
  await app.listen({ host: listen, port });
  if (jobs.mayHoldWork)
    jobs
      .open()
      .catch((error: unknown) =>
        app.log.error({ err: error }, 'the job queues did not open; the next call that needs them tries again'),
      );
  const built = builds.running;
  const info: DaemonInfo = {
    pid: process.pid,
    url,
    listen,
    startedAt: new Date().toISOString(),
    ...(token ? { token } : {}),
    ...(built ? { built } : {}),
    ...restarted,
  };
  writeFileSync(daemonInfoFile(home), JSON.stringify(info, null, 2), { mode: 0o600 });
  return { url, manager, jobs, stop, token };
}

/** How the last control plane ended, when control-plane/keeper.sh started this one after it. */
function restartedBy(env: NodeJS.ProcessEnv): ControlPlaneRestart | undefined {
  const lastEnded = env.REGLAB_CONTROL_PLANE_ENDED;
  return lastEnded ? { restarts: Number(env.REGLAB_CONTROL_PLANE_RESTARTS ?? 1), lastEnded } : undefined;
}

/**
 * The last control plane's port, so its dashboard and the URL its labs' faucets mine through stay right; a free one
 * when that is taken.
 */
async function portOf(previous: DaemonInfo | undefined): Promise<number> {
  const port = previous ? Number(new URL(previous.url).port) : undefined;
  return port && !(await isListening(port)) ? port : freePort();
}

interface QueueRedis {
  /** Its URL, once it answers. */
  url(): Promise<string>;
  /** See JobQueues: a Redis that starts empty holds no work the queues must take up at start. */
  startsEmpty: boolean;
  stop(): Promise<void>;
}

/**
 * REGLAB_REDIS_URL's Redis, or one of the control plane's own, started when the queues first need
 * it (a lab brought up without auto-mining may need none): started empty, its data not kept. The
 * one a control plane left when it ended without its stop (recorded in redis/server.json) is taken
 * over, with the work it holds (auto-mining schedules), rather than left running beside a new one.
 */
function queueRedisOf(home: string): QueueRedis {
  const external = process.env.REGLAB_REDIS_URL;
  if (external) return { url: async () => external, startsEmpty: false, stop: async () => undefined };
  const record = join(home, 'redis', 'server.json');
  const left = leftRunning(record);
  let started: Promise<RunningRedis> | undefined = left && Promise.resolve(left);
  const start = async () => {
    const port = await freePort();
    const pid = startDetached(redisLaunch(join(home, 'redis'), port), join(home, 'logs', 'control-plane-redis.log'));
    const url = redisUrl(port);
    try {
      await waitFor(() => pingRedis(url), {
        timeoutMs: 15_000,
        intervalMs: 20,
        what: `the control plane's Redis on port ${port}`,
      });
    } catch (error) {
      await stopProcessGroup(pid);
      throw error;
    }
    writeFileSync(record, JSON.stringify({ url, pid }));
    return { url, pid };
  };
  return {
    url: async () => {
      started ??= start().catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      return (await started).url;
    },
    startsEmpty: left === undefined,
    stop: async () => {
      const running = await started?.catch(() => undefined);
      if (running) await stopProcessGroup(running.pid);
      rmSync(record, { force: true });
    },
  };
}

interface RunningRedis {
  url: string;
  pid: number;
}

/** The control plane's Redis recorded in `record`, if its process still runs. */
function leftRunning(record: string): RunningRedis | undefined {
  try {
    const redis = JSON.parse(readFileSync(record, 'utf8')) as RunningRedis;
    return runsProgram(redis.pid, 'redis-server') ? redis : undefined;
  } catch {
    return undefined;
  }
}
