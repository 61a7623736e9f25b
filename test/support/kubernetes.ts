// The test cluster (scripts/test-cluster.sh) for the tests that need a real Kubernetes. `testCluster()`
// starts it when it is down and leaves it as it is when it is up; a cluster this test run started is
// taken down by the run's global teardown (`stopTestClusterIfStarted`), one that was up before is left up.
// The first bring-up on a machine builds the cluster's binaries: 15 to 25 minutes on two cores.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const SCRIPT = resolve('scripts/test-cluster.sh');
/** A hook that may bring the cluster up gives it this long: the first time, Kubernetes is built from source. */
export const TEST_CLUSTER_UP_TIMEOUT_MS = 45 * 60_000;
const STARTED_MARKER = 'test-cluster-started';
/** `scripts/test-cluster.sh status` exits 3 when nothing of the cluster runs. */
const STATUS_DOWN = 3;

export interface TestCluster {
  /** Its kubeconfig (admin), for kubectl and @kubernetes/client-node alike. */
  kubeconfig: string;
  /** The pinned kubectl on the cluster: its stdout; rejects with its stderr when it exits non-zero. */
  kubectl(args: string[], input?: string): Promise<string>;
  /** Copies Podman images into the cluster's containerd, under the names Podman gives them. */
  loadImages(...images: string[]): Promise<void>;
  /** containerd's ctr on the cluster's k8s.io namespace: its stdout. */
  ctr(...args: string[]): Promise<string>;
}

/** The test cluster, brought up first when it is down (see TEST_CLUSTER_UP_TIMEOUT_MS). */
export async function testCluster(): Promise<TestCluster> {
  const { code } = await runScript(['status']);
  if (code !== 0) {
    const registry = process.env.REGLAB_PROCESS_REGISTRY;
    if (code === STATUS_DOWN && registry) writeFileSync(join(registry, STARTED_MARKER), '');
    const up = await runScript(['up'], { progress: true });
    if (up.code !== 0) throw new Error(`scripts/test-cluster.sh up failed (exit ${up.code}):\n${up.output}`);
  }
  const kubeconfig = (await runScript(['kubeconfig'])).output.trim();
  const checked = async (args: string[], input?: string) => {
    const result = await runScript(args, { input });
    if (result.code !== 0) throw new Error(`scripts/test-cluster.sh ${args.join(' ')} failed:\n${result.output}`);
    return result.stdout;
  };
  return {
    kubeconfig,
    kubectl: (args, input) => checked(['kubectl', ...args], input),
    loadImages: async (...images) => {
      await checked(['load-image', ...images]);
    },
    ctr: (...args) => checked(['ctr', ...args]),
  };
}

/** For the global teardown: takes the test cluster down if this test run brought it up. */
export async function stopTestClusterIfStarted(registry: string): Promise<void> {
  if (!existsSync(join(registry, STARTED_MARKER))) return;
  const { code, output } = await runScript(['down']);
  if (code !== 0) console.warn(`scripts/test-cluster.sh down failed (exit ${code}):\n${output}`);
}

interface ScriptResult {
  code: number;
  stdout: string;
  /** stdout and stderr interleaved, for error messages */
  output: string;
}

/** scripts/test-cluster.sh ARGS; with `progress`, its output is shown as it comes (a build takes minutes). */
function runScript(args: string[], options: { input?: string; progress?: boolean } = {}): Promise<ScriptResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      output += chunk;
      if (options.progress) process.stderr.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
      if (options.progress) process.stderr.write(chunk);
    });
    child.on('error', reject);
    // a script that exits without reading its input closes the pipe: its exit status tells what went wrong
    child.stdin.on('error', (error) => (output += `\n(its input was not read: ${error.message})`));
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, output }));
    child.stdin.end(options.input ?? '');
  });
}
