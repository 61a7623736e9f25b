// reglab-ldk daemons for tests: spawned from the built binary on free ports with data in a temp
// folder, driven through their HTTP API, always stopped (SIGTERM, then SIGKILL) by stopAll().
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { freePorts } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';

export function ldkBinary(): string {
  return join(process.env.REGLAB_BIN_DIR ?? join(homedir(), '.cache', 'reglab', 'bin'), 'reglab-ldk');
}

export interface LdkAnswer<T = any> {
  status: number;
  body: T;
}

export interface LdkNode {
  name: string;
  dataDir: string;
  apiUrl: string;
  /** host:port of its Lightning port. */
  p2p: string;
  pubkey: string;
  process: ChildProcess;
  /** Any method and path; the body as JSON; answers whatever status came back. */
  call<T = any>(method: string, path: string, body?: unknown): Promise<LdkAnswer<T>>;
  /** GET, failing the test on anything but 2xx. */
  get<T = any>(path: string): Promise<T>;
  /** POST, failing the test on anything but 2xx. */
  post<T = any>(path: string, body?: unknown): Promise<T>;
  /** SIGTERM and wait for the exit; returns the exit code (SIGKILL after 20 s). */
  stop(): Promise<number | null>;
  /** Stop, then start again on the same ports and data folder. */
  restart(): Promise<LdkNode>;
  log(): string;
}

const running = new Set<LdkNode>();
const dirs = new Set<string>();

export interface StartLdkOptions {
  name: string;
  chainSource: string;
  /** Reuse a data folder (and ports) of a previous run. */
  dataDir?: string;
  apiPort?: number;
  p2pPort?: number;
  extraArgs?: string[];
}

export async function startLdk(options: StartLdkOptions): Promise<LdkNode> {
  const binary = ldkBinary();
  if (!existsSync(binary))
    throw new Error(`${binary} is missing: build it with \`bash scripts/build-ldk.sh\` (needs rustup's cargo)`);
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `reglab-ldk-${options.name}-`));
  dirs.add(dataDir);
  const [apiPort, p2pPort] =
    options.apiPort && options.p2pPort ? [options.apiPort, options.p2pPort] : await freePorts(2);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const p2p = `127.0.0.1:${p2pPort}`;
  const logFile = join(dataDir, 'daemon.log');
  const child = spawn(
    binary,
    [
      '--data-dir',
      dataDir,
      '--api-listen',
      `127.0.0.1:${apiPort}`,
      '--p2p-listen',
      p2p,
      '--network',
      'regtest',
      '--chain-source',
      options.chainSource,
      '--alias',
      options.name,
      ...(process.env.REGLAB_LDK_LOG_LEVEL ? ['--log-level', process.env.REGLAB_LDK_LOG_LEVEL] : []),
      ...(options.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = createWriteStream(logFile, { flags: 'a' });
  // both into one file, which stop() ends once the process has closed both: the first of them to end
  // must not end it, or what the other says last ("stopped") is lost
  child.stdout!.pipe(out, { end: false });
  child.stderr!.pipe(out, { end: false });
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', () => (exited = true));

  const call = async <T>(method: string, path: string, body?: unknown): Promise<LdkAnswer<T>> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, body: parsed as T };
  };
  const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await call<T>(method, path, body);
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`${options.name}: ${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const node: LdkNode = {
    name: options.name,
    dataDir,
    apiUrl,
    p2p,
    pubkey: '',
    process: child,
    call,
    get: (path) => ok('GET', path),
    post: (path, body) => ok('POST', path, body ?? {}),
    async stop() {
      running.delete(node);
      if (child.exitCode === null && child.signalCode === null) {
        // 'close' comes after the exit and after its output is read to the end.
        const closed = once(child, 'close');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await closed;
        clearTimeout(timer);
      }
      if (!out.writableEnded) await new Promise<void>((resolve) => out.end(resolve));
      return child.exitCode;
    },
    async restart() {
      await node.stop();
      return startLdk({ ...options, dataDir, apiPort, p2pPort });
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
  running.add(node);
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`reglab-ldk ${options.name} exited with ${child.exitCode}: ${node.log()}`);
        return (await call('GET', '/health').catch(() => ({ status: 0 }))).status === 200;
      },
      { timeoutMs: 30_000, intervalMs: 25, what: `reglab-ldk ${options.name} to be ready`, stopOn: () => exited },
    );
    node.pubkey = (await node.get<{ node_id: string }>('/v1/info')).node_id;
  } catch (error) {
    await node.stop();
    throw error;
  }
  return node;
}

/** Stops every daemon still running and removes their data folders. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((node) => node.stop()));
  // REGLAB_KEEP_LDK_DATA=1 keeps the data folders (LDK's log is DIR/ldk_node.log) to look into a failure.
  if (!process.env.REGLAB_KEEP_LDK_DATA) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  else console.log(`LDK data folders kept: ${[...dirs].join(' ')}`);
  dirs.clear();
}

// A test run that dies without its afterAll must not leave daemons behind.
process.once('exit', () => {
  for (const node of running) node.process.kill('SIGKILL');
});

/** Reads the daemon's event log (JSON form of GET /v1/events) after `since`. */
export async function ldkEvents(node: LdkNode, since = 0): Promise<{ id: number; type: string; [key: string]: any }[]> {
  const response = await fetch(`${node.apiUrl}/v1/events?since=${since}`, { headers: { accept: 'application/json' } });
  return ((await response.json()) as { events: { id: number; type: string }[] }).events;
}

/** Waits for an event of `type` matching `match`, after `since`. */
export function waitEvent(
  node: LdkNode,
  type: string,
  match: (event: any) => boolean = () => true,
  options: { since?: number; timeoutMs?: number } = {},
) {
  return waitFor(
    async () => (await ldkEvents(node, options.since ?? 0)).find((event) => event.type === type && match(event)),
    {
      timeoutMs: options.timeoutMs ?? 60_000,
      what: `${type} on ${node.name}`,
    },
  );
}
