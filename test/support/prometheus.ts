// A real Prometheus (Debian's `prometheus`, scripts/setup.sh --test) on a free loopback port, with
// a configuration of the test's, and its HTTP API's instant queries. Stopped by stop().
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';

export interface RunningPrometheus {
  url: string;
  /** The value of an instant query that answers one series; undefined while it answers none. */
  value(query: string): Promise<number | undefined>;
  /** Waits until `query` answers a value that `holds`, and returns it. */
  waitFor(query: string, holds: (value: number) => boolean, what: string): Promise<number>;
  stop(): Promise<void>;
}

const BINARY = process.env.REGLAB_PROMETHEUS ?? '/usr/bin/prometheus';

/** Starts Prometheus with `scrapeConfigs` (YAML of scrape_configs' entries), scraping every second. */
export async function startPrometheus(scrapeConfigs: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-prometheus-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nscrape_configs:\n${scrapeConfigs}`,
  );
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    BINARY,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (spawned)
    throw new Error(
      `cannot start ${BINARY} (${spawned.message}): install Prometheus with \`apt-get install -y prometheus\` (scripts/setup.sh --test)`,
    );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => child.exitCode === null && (await fetch(`${url}/-/ready`)).ok, {
      timeoutMs: 60_000,
      what: `Prometheus on port ${port} to be ready`,
      stopOn: () => child.exitCode !== null,
    });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; its output:\n${output.slice(-2000)}`);
  }
  const value = async (query: string) => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`);
    const answer = (await response.json()) as {
      status: string;
      error?: string;
      data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (answer.status !== 'success') throw new Error(`Prometheus refused ${query}: ${answer.error}`);
    const result = answer.data!.result;
    if (result.length > 1) throw new Error(`${query} answers ${result.length} series: sum them, or name more labels`);
    return result.length === 0 ? undefined : Number(result[0]!.value[1]);
  };
  return {
    url,
    value,
    waitFor: (query, holds, what) =>
      waitFor(
        async () => {
          const found = await value(query);
          return found !== undefined && holds(found) ? found : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500, what: `Prometheus to see ${what} (${query})` },
      ),
    stop,
  };
}
