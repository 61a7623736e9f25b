// lab.yaml's `runtime: kubernetes` and its `kubernetes:` block: what is accepted, and each refusal
// on the line it is about.
import { describe, expect, it } from 'vitest';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { problemLines } from './refusal.js';

const LAB = `name: k
runtime: kubernetes
nodes:
  - name: alice
  - name: bob
services:
  wallet-server:
    node: alice
`;

describe('lab.yaml on kubernetes', () => {
  it('accepts the whole kubernetes block and keeps it as written', () => {
    const lab = parseLabSpec(`${LAB}kubernetes:
  kubeconfig: /etc/reglab/kubeconfig
  context: workshop
  namespace: attendees-1
  storage_class: local-path
  storage_size: 2Gi
  image_registry: registry.example.com/reglab
  image_pull_policy: Always
  access: port-forward
  resources:
    default: { requests: { cpu: 50m, memory: 64Mi } }
    lnd: { limits: { memory: 512Mi } }
    alice: { requests: { cpu: "0.5" }, limits: { cpu: "1", memory: 1Gi } }
`);
    expect(lab.runtime).toBe('kubernetes');
    expect(lab.kubernetes).toEqual({
      kubeconfig: '/etc/reglab/kubeconfig',
      context: 'workshop',
      namespace: 'attendees-1',
      storage_class: 'local-path',
      storage_size: '2Gi',
      image_registry: 'registry.example.com/reglab',
      image_pull_policy: 'Always',
      access: 'port-forward',
      resources: {
        default: { requests: { cpu: '50m', memory: '64Mi' } },
        lnd: { limits: { memory: '512Mi' } },
        alice: { requests: { cpu: '0.5' }, limits: { cpu: '1', memory: '1Gi' } },
      },
    });
  });

  it('needs no kubernetes block: every setting has a default', () => {
    expect(parseLabSpec(LAB).kubernetes).toBeUndefined();
  });

  it('refuses the block on another runtime, where nothing would read it', () => {
    expect(problemLines('name: k\nruntime: docker\nkubernetes:\n  namespace: x\n', 'lab.yaml')).toEqual([
      {
        line: 3,
        path: 'kubernetes',
        message: "the kubernetes block is read only with runtime: kubernetes (this lab's runtime is docker)",
      },
    ]);
  });

  it('refuses amounts, names and settings Kubernetes would refuse, each on its line', () => {
    const problems = problemLines(
      `${LAB}kubernetes:\n  namespace: Not_A_Label\n  storage_size: lots\n  image_pull_policy: Sometimes\n  access: node-port\n  resources:\n    lnd: { requests: { cpu: two } }\n    bob: { limits: { memory: 1GB } }\n`,
      'lab.yaml',
    );
    expect(problems).toEqual([
      {
        line: 10,
        path: 'kubernetes.namespace',
        message: 'must be a Kubernetes namespace name: lower-case letters, digits and dashes, at most 63 characters',
      },
      {
        line: 11,
        path: 'kubernetes.storage_size',
        message: 'must be a Kubernetes byte amount, e.g. "512Mi", "1Gi" or "1000000"',
      },
      { line: 12, path: 'kubernetes.image_pull_policy', message: expect.stringContaining('Always') },
      { line: 13, path: 'kubernetes.access', message: expect.stringContaining('port-forward') },
      {
        line: 15,
        path: 'kubernetes.resources.lnd.requests.cpu',
        message: 'must be a Kubernetes CPU amount: cores ("1", "0.5") or millicores ("250m")',
      },
      {
        line: 16,
        path: 'kubernetes.resources.bob.limits.memory',
        message: 'must be a Kubernetes byte amount, e.g. "512Mi", "1Gi" or "1000000"',
      },
    ]);
  });

  it('refuses resources for a service the lab does not run', () => {
    expect(
      problemLines(`${LAB}kubernetes:\n  resources:\n    carol: { limits: { memory: 1Gi } }\n`, 'lab.yaml'),
    ).toEqual([
      {
        line: 11,
        path: 'kubernetes.resources.carol',
        message: expect.stringContaining('"carol" is neither a service of this lab'),
      },
    ]);
  });

  it("refuses a Postgres or Redis on this machine's loopback, which a pod cannot reach", () => {
    const problems = problemLines(
      `${LAB}postgres:\n  url: postgres://u:p@127.0.0.1:5432/db\nredis:\n  url: redis://localhost:6379\n`,
      'lab.yaml',
    );
    expect(problems.map(({ line, path }) => ({ line, path }))).toEqual([
      { line: 10, path: 'postgres.url' },
      { line: 12, path: 'redis.url' },
    ]);
    expect(problems[0].message).toContain('in a pod is the pod itself');
    // the same URLs are fine on the process runtime, and a Service's name is fine on kubernetes
    expect(() =>
      parseLabSpec(`${LAB.replace('kubernetes', 'process')}postgres:\n  url: postgres://127.0.0.1/db\n`),
    ).not.toThrow();
    expect(() => parseLabSpec(`${LAB}redis:\n  url: redis://redis.shared.svc:6379\n`)).not.toThrow();
  });

  it('refuses network faults, whose proxies it cannot put on the links yet', () => {
    const problems = problemLines(`${LAB}network:\n  faults: true\n`, 'lab.yaml');
    expect(problems.map(({ line, path }) => ({ line, path }))).toEqual([{ line: 10, path: 'network.faults' }]);
    expect(problems[0].message).toContain('network faults need the process or docker runtime');
    expect(() => parseLabSpec(`${LAB}network:\n  faults: false\n`)).not.toThrow();
  });

  it('runs rln nodes from their image, as docker does', () => {
    expect(parseLabSpec('name: k\nruntime: kubernetes\nnodes:\n  - name: r\n    kind: rln\n').nodes[0].kind).toBe(
      'rln',
    );
  });
});
