// What the tests of labs on the kubernetes runtime share: the test cluster (scripts/test-cluster.sh),
// a folder whose lab.yaml runs there, driven through the CLI as a user drives it, with the lab's
// images built here and loaded into the cluster's containerd (`reglab images build`, `images load`),
// and what a lab may leave in the cluster.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CliResult, reglabIn } from '../support/cli.js';
import { type TestCluster, testCluster } from '../support/kubernetes.js';

/** One command may take this long: the first `images build` of a machine builds every image. */
const COMMAND_TIMEOUT_MS = 20 * 60_000;

export interface ClusterLabFolder {
  folder: string;
  cluster: TestCluster;
  /** `reglab ARGS...` in the folder, with its own state (`folder/.reglab`). */
  reglab(...args: string[]): Promise<CliResult>;
  /** `kubectl get ARGS... -o json`, parsed. */
  getJson<T>(...args: string[]): Promise<T>;
  remove(): void;
}

/** The default lab of the repository (lab.yaml), named `name`. */
export function defaultLabYaml(name: string): string {
  return readFileSync('lab.yaml', 'utf8')
    .replace(/^name: .*$/m, `name: ${name}`)
    .replace(/^runtime: .*\n/m, '');
}

/** The containerd socket of the test cluster, beside its kubeconfig in its state folder. */
const containerdSocket = (cluster: TestCluster) => join(dirname(cluster.kubeconfig), 'run/containerd/containerd.sock');

/**
 * A folder with `labYaml` (without a runtime) set to run on the test cluster, whose images are
 * built and loaded into the cluster by the CLI (each is skipped when up to date); `imageOptions`
 * go to both commands (`--control-plane`: the control plane's images too). The tests read each
 * node's figures from `reglab status`, which shows a node that answers after the lab's answer
 * time-out as not answering: on a machine busy with other tests a node in a pod can take more than
 * the default 0.75 s, so these labs wait 10 s.
 */
export async function clusterLabFolder(labYaml: string, imageOptions: string[] = []): Promise<ClusterLabFolder> {
  const cluster = await testCluster();
  const folder = mkdtempSync(join(tmpdir(), 'reglab-k8s-'));
  chmodSync(folder, 0o755);
  writeFileSync(
    join(folder, 'lab.yaml'),
    `${labYaml.trimEnd()}\nruntime: kubernetes\nkubernetes:\n  kubeconfig: ${cluster.kubeconfig}\nstatus:\n  answer_timeout_seconds: 10\n`,
  );
  const reglab = reglabIn(() => folder, COMMAND_TIMEOUT_MS);
  for (const args of [
    ['images', 'build', ...imageOptions],
    ['images', 'load', '--containerd', containerdSocket(cluster), ...imageOptions],
  ]) {
    const result = await reglab(...args);
    if (result.code !== 0) throw new Error(`reglab ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  }
  return {
    folder,
    cluster,
    reglab,
    getJson: async <T>(...args: string[]) => JSON.parse(await cluster.kubectl(['get', ...args, '-o', 'json'])) as T,
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

interface Listed<T> {
  items: T[];
}
interface Named {
  metadata: { name: string; namespace?: string };
}
interface Volume extends Named {
  spec: { claimRef?: { namespace?: string } };
}

/** What is left in the cluster of the namespaces given: the namespaces, and volumes bound to claims in them. */
export async function leftInCluster(lab: ClusterLabFolder, namespaces: string[]): Promise<string[]> {
  const [all, volumes] = await Promise.all([
    lab.getJson<Listed<Named>>('namespaces'),
    lab.getJson<Listed<Volume>>('persistentvolumes'),
  ]);
  return [
    ...all.items
      .filter((item) => namespaces.includes(item.metadata.name))
      .map((item) => `namespace/${item.metadata.name}`),
    ...volumes.items
      .filter((volume) => namespaces.includes(volume.spec.claimRef?.namespace ?? ''))
      .map((volume) => `persistentvolume/${volume.metadata.name}`),
  ];
}
