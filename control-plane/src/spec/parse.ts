import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import {
  isUsefulSchemaError,
  parseYamlWithPositions,
  schemaProblem,
  type YamlPath,
} from '../../../lib/yaml-problems.js';
import { allKinds, kindDefinition, nodeKindsWhere } from '../nodes/registry.js';
import type { SpecCheck } from '../nodes/types.js';
import { planProblems } from '../activity/plan.js';
import { checkAssets, describeAssetError } from './assets.js';
import { LabSpecError } from './spec-error.js';
import { checkFaucetAsset } from './faucet-asset.js';
import { checkFaucetTrustProxy } from './faucet-trust-proxy.js';
import { labSchema } from './schema.js';
import { DEFAULT_FEES, type ExternalOrManaged, type FeesSpec, type LabSpec } from './types.js';

// labSchema is checked against JSON Schema's meta-schema by a test (test/spec/schema.unit.test.ts), not at
// each control plane's start, which would compile that meta-schema on the path of every bring-up
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, validateSchema: false });
const validate = ajv.compile(labSchema);

export function loadLabSpec(file: string): LabSpec {
  return parseLabSpec(readFileSync(file, 'utf8'), file);
}

/** Parses and validates lab.yaml; every problem found is reported at once, with its line. */
export function parseLabSpec(text: string, file = 'lab.yaml'): LabSpec {
  const parsed = parseYamlWithPositions(text, file);
  if (!parsed.ok) throw new LabSpecError(parsed.problems);
  const { value: raw, locate } = parsed;
  if (!validate(raw)) {
    throw new LabSpecError(
      (validate.errors ?? [])
        .filter(isUsefulSchemaError)
        .map((error) => schemaProblem(error, locate, { describe: describeLabError })),
    );
  }
  const problems = checkReferences(raw as RawLab).map(({ path, message }) => ({ ...locate(path), message }));
  if (problems.length > 0) throw new LabSpecError(problems);
  return toLabSpec(raw as RawLab);
}

type Path = YamlPath;
type RawLab = Omit<LabSpec, 'postgres' | 'redis' | 'assets' | 'fees'> & {
  postgres: 'managed' | { url: string };
  redis: 'managed' | { url: string };
  assets: (Omit<LabSpec['assets'][number], 'name'> & { name?: string })[];
  fees: { policy: FeesSpec['policy']; sat_per_vbyte?: number };
};

/** The messages of lab.yaml's own shapes: managed-or-url values and names. */
function describeLabError(error: ErrorObject, path: Path): string | undefined {
  if (error.keyword === 'const') return 'must be "managed" or { url: ... }';
  if (path[0] === 'assets' || (path[1] === 'faucet' && path[2] === 'asset')) return describeAssetError(error, path);
  if (path[0] === 'kubernetes' && error.keyword === 'pattern') return describeKubernetesPattern(path);
  if (error.keyword === 'pattern' && (path.at(-1) === 'name' || typeof path.at(-1) === 'number')) {
    return 'must be lower-case letters, digits and dashes, starting with a letter (at most 31 characters)';
  }
  return undefined;
}

interface Reference {
  path: Path;
  message: string;
}

/**
 * What a schema cannot say: names that must exist, names that must be unique, ports that must differ,
 * and each kind's own rules (KindDefinition.validate), asked of every node and lab service.
 */
function checkReferences(lab: RawLab): Reference[] {
  const problems: Reference[] = [];
  const check: SpecCheck = { lab, kindOf: kindDefinition, nodeKinds: nodeKindsWhere };
  if (lab.chain.kind === 'bitcoind') {
    problems.push({
      path: ['chain', 'kind'],
      message: 'bitcoind is not launched by this version of reglab (its driver exists, its launch does not): use btcd',
    });
  }
  const nodes = new Map<string, LabSpec['nodes'][number]>();
  lab.nodes.forEach((node, index) => {
    if (nodes.has(node.name))
      problems.push({ path: ['nodes', index, 'name'], message: `duplicate node name "${node.name}"` });
    nodes.set(node.name, node);
    problems.push(...settingsOfOtherKinds(node, index));
    problems.push(...(kindDefinition(node.kind).validate?.({ name: node.name, path: ['nodes', index] }, check) ?? []));
  });
  const reservedNames = new Set([
    'chain',
    'indexer',
    'postgres',
    'redis',
    'rgb-proxy',
    'wallet-server',
    'faucet',
    'chain-adapter',
    'toxiproxy',
  ]);
  lab.nodes.forEach((node, index) => {
    if (reservedNames.has(node.name))
      problems.push({
        path: ['nodes', index, 'name'],
        message: `"${node.name}" is the name of a lab service; pick another node name`,
      });
  });
  const endpoints = (from: string, to: string) => [from, to].sort().join('\u0000');
  const seenChannels = new Set<string>();
  lab.channels.forEach((channel, index) => {
    for (const end of ['from', 'to'] as const) {
      if (!nodes.has(channel[end]))
        problems.push({
          path: ['channels', index, end],
          message: `no node named "${channel[end]}" (nodes: ${[...nodes.keys()].join(', ') || 'none'})`,
        });
    }
    if (channel.from === channel.to)
      problems.push({ path: ['channels', index, 'to'], message: 'a channel needs two different nodes' });
    if (channel.push_sat >= channel.capacity_sat)
      problems.push({
        path: ['channels', index, 'push_sat'],
        message: `push_sat must be less than capacity_sat (${channel.capacity_sat})`,
      });
    const key = endpoints(channel.from, channel.to);
    if (seenChannels.has(key))
      problems.push({
        path: ['channels', index],
        message: `a second channel between ${channel.from} and ${channel.to}`,
      });
    seenChannels.add(key);
  });
  for (const service of ['wallet-server', 'faucet'] as const) {
    const settings = lab.services[service];
    if (!settings) continue;
    if (!nodes.has(settings.node))
      problems.push({ path: ['services', service, 'node'], message: `no node named "${settings.node}"` });
  }
  for (const service of ['wallet-server', 'faucet', 'chain-adapter'] as const) {
    if (lab.services[service])
      problems.push(
        ...(kindDefinition(service).validate?.({ name: service, path: ['services', service] }, check) ?? []),
      );
  }
  problems.push(...checkAssets(lab.assets, nodes));
  const faucetAsset = lab.services.faucet?.asset;
  if (faucetAsset) problems.push(...checkFaucetAsset(faucetAsset, lab.assets, nodes));
  problems.push(...checkFaucetTrustProxy(lab.services.faucet?.trust_proxy ?? []));
  const serviceNames = new Set([
    'chain',
    ...(lab.indexer.enabled ? ['indexer'] : []),
    'postgres',
    'redis',
    'rgb-proxy',
    ...nodes.keys(),
    ...Object.keys(lab.services),
  ]);
  for (const name of Object.keys(lab.supervision.services)) {
    if (!serviceNames.has(name))
      problems.push({
        path: ['supervision', 'services', name],
        message: `no service named "${name}" in this lab (services: ${[...serviceNames].join(', ')})`,
      });
  }
  if (lab.activity)
    for (const problem of planProblems(lab.activity, lab.nodes))
      problems.push({ path: ['activity', ...problem.path], message: problem.message });
  if (lab.fees.policy === 'node' && lab.fees.sat_per_vbyte !== undefined) {
    problems.push({
      path: ['fees', 'sat_per_vbyte'],
      message:
        "sat_per_vbyte is the rate of the fixed policy; with policy: node the chain node's estimates set the rates",
    });
  }
  problems.push(...checkKubernetes(lab, serviceNames));
  const ports = new Map<number, string>();
  for (const service of ['wallet-server', 'faucet', 'chain-adapter'] as const) {
    const port = lab.services[service]?.port;
    if (port === undefined) continue;
    const other = ports.get(port);
    if (other)
      problems.push({ path: ['services', service, 'port'], message: `port ${port} is already taken by ${other}` });
    ports.set(port, service);
  }
  return problems;
}

/** What a schema pattern of the kubernetes block asks for, by the key it is about. */
function describeKubernetesPattern(path: Path): string {
  const key = path.at(-1);
  if (key === 'cpu') return 'must be a Kubernetes CPU amount: cores ("1", "0.5") or millicores ("250m")';
  if (key === 'memory' || key === 'storage_size')
    return 'must be a Kubernetes byte amount, e.g. "512Mi", "1Gi" or "1000000"';
  if (key === 'namespace')
    return 'must be a Kubernetes namespace name: lower-case letters, digits and dashes, at most 63 characters';
  return 'must be a registry address and path without spaces, e.g. registry.example.com/reglab';
}

/** The kinds a `kubernetes.resources` entry may name besides a service (`default`: every other service). */
const RESOURCE_GROUPS = ['default', 'btcd', 'lnd', 'ldk', 'rln', 'rgb', 'postgres', 'redis', 'indexer', 'rgb-proxy'];

/** Loopback in a lab.yaml URL: on a cluster, the pod itself. */
const LOOPBACK_URL = /^[a-z]+:\/\/(?:[^@/]*@)?(?:127\.[0-9.]+|localhost|\[::1\])(?::|\/|$)/i;

/**
 * The kubernetes block is read only by `runtime: kubernetes`; there, what cannot work on a cluster
 * is refused: network faults, a Postgres or Redis on loopback (a pod's 127.0.0.1 is itself),
 * resources for services the lab lacks.
 */
function checkKubernetes(lab: RawLab, serviceNames: Set<string>): Reference[] {
  const problems: Reference[] = [];
  const settings = lab.kubernetes;
  if (lab.runtime !== 'kubernetes') {
    if (settings !== undefined)
      problems.push({
        path: ['kubernetes'],
        message: `the kubernetes block is read only with runtime: kubernetes (this lab's runtime is ${lab.runtime})`,
      });
    return problems;
  }
  if (lab.network?.faults)
    problems.push({
      path: ['network', 'faults'],
      message:
        'network faults need the process or docker runtime: on kubernetes the links between nodes cannot go through their proxies yet',
    });
  for (const store of ['postgres', 'redis'] as const) {
    const value = lab[store];
    if (typeof value === 'object' && LOOPBACK_URL.test(value.url))
      problems.push({
        path: [store, 'url'],
        message: `${value.url} names this machine's loopback, which in a pod is the pod itself: give an address the cluster's pods reach (a Service's name, a host's address), or "managed"`,
      });
  }
  for (const name of Object.keys(settings?.resources ?? {})) {
    if (!serviceNames.has(name) && !RESOURCE_GROUPS.includes(name))
      problems.push({
        path: ['kubernetes', 'resources', name],
        message: `"${name}" is neither a service of this lab (${[...serviceNames].join(', ')}) nor a kind (${RESOURCE_GROUPS.slice(1).join(', ')}) nor default`,
      });
  }
  return problems;
}

/** The settings each kind of node takes beyond the common ones, by kind. */
const KIND_SETTINGS = new Set(allKinds().flatMap((kind) => Object.keys(kind.nodeSettings ?? {})));

/** A setting only other kinds of nodes take (KindDefinition.nodeSettings), on this node. */
function settingsOfOtherKinds(node: RawLab['nodes'][number], index: number): Reference[] {
  const own = kindDefinition(node.kind).nodeSettings ?? {};
  return Object.keys(node)
    .filter((key) => KIND_SETTINGS.has(key) && !(key in own))
    .map((key) => {
      const kinds = nodeKindsWhere((kind) => key in (kind.nodeSettings ?? {})).join(', ');
      return {
        path: ['nodes', index, key],
        message: `${key} is a setting of ${kinds} nodes; ${node.kind} nodes take none`,
      };
    });
}

function toLabSpec(raw: RawLab): LabSpec {
  const managedOrUrl = (value: RawLab['postgres']): ExternalOrManaged =>
    value === 'managed' ? { managed: true } : { managed: false, url: value.url };
  const assets = raw.assets.map((asset) => ({ ...asset, name: asset.name ?? asset.ticker }));
  const fees: FeesSpec =
    raw.fees.policy === 'node'
      ? { policy: 'node' }
      : { policy: 'fixed', sat_per_vbyte: raw.fees.sat_per_vbyte ?? DEFAULT_FEES.sat_per_vbyte };
  return { ...raw, postgres: managedOrUrl(raw.postgres), redis: managedOrUrl(raw.redis), assets, fees };
}
