// A workshop on the kubernetes runtime, on the test cluster: `reglab up --copies 2` brings up two
// labs from one lab.yaml, each in a namespace of its own with its own chain, token and dashboard
// URL; `reglab down --all` takes both down and leaves nothing of them in the cluster.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../control-plane/src/runtimes/kubernetes/names.js';
import { waitFor } from '../../lib/wait.js';
import { TEST_CLUSTER_UP_TIMEOUT_MS } from '../support/kubernetes.js';
import { type ClusterLabFolder, clusterLabFolder, leftInCluster } from './support.js';

interface Pod {
  metadata: { name: string; labels: Record<string, string> };
  status: { phase: string; podIP?: string };
}

const prefix = `ws${randomBytes(2).toString('hex')}-`;
const labs = [`${prefix}1`, `${prefix}2`];
const namespaces = labs.map((lab) => `reglab-${lab}`);

describe('a workshop of two labs on the kubernetes runtime', () => {
  let workshop: ClusterLabFolder;
  const height = async (lab: string) => {
    const result = await workshop.reglab('--json', '--lab', lab, 'status');
    return (JSON.parse(result.stdout) as { chain: { height: number } }).chain.height;
  };

  beforeAll(async () => {
    // a lab of its chain node only: the copies, not the services, are what is tested
    workshop = await clusterLabFolder('# one per attendee\nname: lesson\nindexer:\n  enabled: false\n');
  }, TEST_CLUSTER_UP_TIMEOUT_MS);

  afterAll(async () => {
    await workshop?.reglab('down', '--all');
    workshop?.remove();
  });

  it('brings up both copies, each in a namespace of its own', async () => {
    const up = await workshop.reglab('up', '--copies', '2', '--name-prefix', prefix);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    for (const lab of labs) expect(up.stdout).toMatch(new RegExp(`^${lab} ready after`, 'm'));

    for (const [index, namespace] of namespaces.entries()) {
      const pods = (await workshop.getJson<{ items: Pod[] }>('pods', '--namespace', namespace)).items;
      expect(pods.map((pod) => [pod.metadata.name, pod.metadata.labels[LABELS.lab], pod.status.phase])).toEqual([
        ['chain', labs[index], 'Running'],
      ]);
    }
  });

  it('keeps the labs apart: a block mined in one is not in the other', async () => {
    const [first, second] = await Promise.all(labs.map(height));
    const mined = await workshop.reglab('--lab', labs[0], 'mine', '3');
    expect(mined.code, mined.stdout + mined.stderr).toBe(0);
    await waitFor(async () => (await height(labs[0])) === first + 3, {
      timeoutMs: 60_000,
      what: `${labs[0]} to be 3 blocks higher`,
    });
    expect(await height(labs[1])).toBe(second);
  });

  it('lists each lab with its own dashboard URL and token', async () => {
    const listed = await workshop.reglab('list', '--prefix', prefix, '--csv');
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => row.split(','));
    expect(rows.map(([lab, status]) => [lab, status])).toEqual(labs.map((lab) => [lab, 'ready']));
    expect(new Set(rows.map((row) => row[3])).size).toBe(2);
    for (const [index, row] of rows.entries()) expect(new URL(row[2]).searchParams.get('lab')).toBe(labs[index]);
  });

  it('takes both down with one command, leaving nothing of them in the cluster', async () => {
    const down = await workshop.reglab('down', '--all');
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(down.stdout.trim().split('\n').sort()).toEqual(labs.map((lab) => `lab ${lab} is down`));
    await waitFor(async () => (await leftInCluster(workshop, namespaces)).length === 0, {
      timeoutMs: 120_000,
      what: 'both namespaces and their volumes to be gone',
    });
  });
});
