// `reglab render --kubernetes`: the default lab's objects, in apply order, from the runtime's code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { kubernetesObjects, renderKubernetes } from '../../control-plane/src/lab/render-kubernetes.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

const defaultLab = readFileSync('lab.yaml', 'utf8');

describe('reglab render --kubernetes', () => {
  it('the default lab: its namespace, a claim per service with data, a Service and a Pod per service', () => {
    const objects = kubernetesObjects(parseLabSpec(defaultLab), defaultLab);
    const names = (kind: string) =>
      objects.filter((object) => object.kind === kind).map((object) => object.metadata!.name);
    expect(objects[0]).toMatchObject({ kind: 'Namespace', metadata: { name: 'reglab-default' } });
    const services = [
      'chain',
      'indexer',
      'postgres',
      'redis',
      'alice',
      'bob',
      'carol',
      'wallet-server',
      'faucet',
      'chain-adapter',
    ];
    expect(names('PersistentVolumeClaim')).toEqual([
      'chain-data',
      'indexer-data',
      'postgres-data',
      'redis-data',
      'alice-data',
      'bob-data',
      'carol-data',
    ]);
    expect(names('Service')).toEqual(services);
    expect(names('Pod')).toEqual(services);
    expect(objects.map((object) => object.kind)).toEqual([
      'Namespace',
      ...Array(7).fill('PersistentVolumeClaim'),
      ...Array(10).fill('Service'),
      ...Array(10).fill('Pod'),
    ]);
    for (const object of objects.slice(1)) expect(object.metadata!.namespace).toBe('reglab-default');
  });

  it('names what the lab learns at bring-up, and nothing else, as a placeholder', () => {
    const text = renderKubernetes(parseLabSpec(defaultLab), defaultLab);
    const documents = parseAllDocuments(text).map((document) => document.toJS());
    expect(documents).toHaveLength(28);
    const wallet = documents.find((object) => object.kind === 'Pod' && object.metadata.name === 'wallet-server');
    const env = Object.fromEntries(
      wallet.spec.containers[0].env.map((variable: { name: string; value: string }) => [variable.name, variable.value]),
    );
    expect(env.LND_MACAROON_HEX).toBe('<macaroonHex of alice: known at bring-up>');
    expect(env.LND_GRPC_HOST).toBe('alice:10009');
    expect(env.DATABASE_URL).toBe('postgres://postgres@postgres:5432/postgres');
    const chain = documents.find((object) => object.kind === 'Pod' && object.metadata.name === 'chain');
    expect(JSON.stringify(chain)).not.toContain('known at bring-up');
  });

  it("follows lab.yaml's kubernetes block: namespace, registry, pull policy, storage", () => {
    const yaml = `${defaultLab.replace('runtime: process', 'runtime: kubernetes')}kubernetes:\n  namespace: workshop-1\n  image_registry: registry.example/reglab\n  storage_class: fast\n  storage_size: 3Gi\n`;
    const objects = kubernetesObjects(parseLabSpec(yaml), yaml);
    const pod = objects.find((object) => object.kind === 'Pod') as {
      spec: { containers: { image: string; imagePullPolicy: string }[] };
    };
    expect(pod.spec.containers[0]).toMatchObject({
      image: 'registry.example/reglab/reglab-btcd:local',
      imagePullPolicy: 'IfNotPresent',
    });
    const claim = objects.find((object) => object.kind === 'PersistentVolumeClaim') as { spec: unknown };
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast',
      resources: { requests: { storage: '3Gi' } },
    });
    expect(new Set(objects.map((object) => object.metadata!.namespace ?? object.metadata!.name))).toEqual(
      new Set(['workshop-1']),
    );
  });

  it('prints YAML that reads back as the same objects, read as kubectl reads it (YAML 1.1) too', () => {
    const spec = parseLabSpec(defaultLab);
    const text = renderKubernetes(spec, defaultLab);
    const documents = (version: '1.1' | '1.2') =>
      text
        .split(/^---\n/m)
        .slice(1)
        .map((document) => parse(document, { version }));
    expect(documents('1.2').map((document) => `${document.kind}/${document.metadata.name}`)).toEqual(
      kubernetesObjects(spec, defaultLab).map((object) => `${object.kind}/${object.metadata!.name}`),
    );
    expect(documents('1.1')).toEqual(documents('1.2'));
    const redis = documents('1.1').find((document) => document.kind === 'Pod' && document.metadata.name === 'redis');
    expect(redis.spec.containers[0].command).toEqual(expect.arrayContaining(['--protected-mode', 'no']));
  });
});
