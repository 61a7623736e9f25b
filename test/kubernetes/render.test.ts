// `reglab render --kubernetes` for GitOps users: the real API server of the test cluster accepts
// every object it prints (`kubectl apply --dry-run=server`), once the lab's namespace exists (a
// server-side dry run of a Namespace does not make it for the objects after it); so does it every
// object of the lab's control plane inside the cluster (`--control-plane`).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reglabIn } from '../support/cli.js';
import { TEST_CLUSTER_UP_TIMEOUT_MS, type TestCluster, testCluster } from '../support/kubernetes.js';
import { defaultLabYaml } from './support.js';

const name = `render-${randomBytes(3).toString('hex')}`;
const namespace = `reglab-${name}`;

describe('reglab render --kubernetes against a real API server', () => {
  let cluster: TestCluster;
  let folder: string;
  const reglab = reglabIn(() => folder);

  beforeAll(async () => {
    cluster = await testCluster();
    folder = mkdtempSync(join(tmpdir(), 'reglab-render-'));
    writeFileSync(join(folder, 'lab.yaml'), `${defaultLabYaml(name)}runtime: kubernetes\n`);
    await cluster.kubectl(['create', 'namespace', namespace]);
  }, TEST_CLUSTER_UP_TIMEOUT_MS);

  afterAll(async () => {
    await cluster?.kubectl(['delete', 'namespace', namespace, '--ignore-not-found']);
    rmSync(folder, { recursive: true, force: true });
  });

  it('prints objects the API server accepts, every one of them', async () => {
    const rendered = await reglab('render', '--kubernetes');
    expect(rendered.code, rendered.stderr).toBe(0);
    const kinds = rendered.stdout.match(/^kind: .+$/gm) ?? [];
    expect(kinds.length).toBeGreaterThan(20);

    const applied = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], rendered.stdout);
    const accepted = applied.split('\n').filter((line) => / \(server dry run\)$/.test(line));
    expect(accepted).toHaveLength(kinds.length);
    for (const kind of ['pod/redis', 'pod/alice', 'service/chain', 'persistentvolumeclaim/postgres-data'])
      expect(accepted.some((line) => line.startsWith(`${kind} `))).toBe(true);
  });

  it('prints a control plane inside the cluster that the API server accepts, its NodePort too', async () => {
    const rendered = await reglab('render', '--kubernetes', '--control-plane', '--node-port', '30999');
    expect(rendered.code, rendered.stderr).toBe(0);
    const kinds = rendered.stdout.match(/^kind: .+$/gm) ?? [];
    const applied = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], rendered.stdout);
    const accepted = applied.split('\n').filter((line) => / \(server dry run\)$/.test(line));
    expect(accepted).toHaveLength(kinds.length);
    for (const kind of [
      'serviceaccount/reglab-control-plane',
      'role.rbac.authorization.k8s.io/reglab-control-plane',
      'rolebinding.rbac.authorization.k8s.io/reglab-control-plane',
      'deployment.apps/reglab-control-plane',
      'service/reglab-control-plane',
      'persistentvolumeclaim/reglab-control-plane-state',
    ])
      expect(accepted.some((line) => line.startsWith(`${kind} `))).toBe(true);
    // refused before anything is printed: a port outside the cluster's NodePort range
    const outside = await reglab('render', '--kubernetes', '--control-plane', '--node-port', '8080');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('30000-32767');
    expect(outside.stdout).toBe('');
  });
});
