import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { labSchema } from './schema.js';
import type { ExternalOrManaged, LabSpec } from './types.js';

export interface SpecProblem {
  file: string;
  line: number;
  column: number;
  /** Where in the document, e.g. `channels[0].to`. */
  path: string;
  message: string;
}

export class LabSpecError extends Error {
  constructor(readonly problems: SpecProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'LabSpecError';
  }
}

export function formatProblem(problem: SpecProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.path || '(top level)'}: ${problem.message}`;
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile(labSchema);

export function loadLabSpec(file: string): LabSpec {
  return parseLabSpec(readFileSync(file, 'utf8'), file);
}

/** Parses and validates lab.yaml; every problem found is reported at once, with its line. */
export function parseLabSpec(text: string, file = 'lab.yaml'): LabSpec {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const locate = locator(document, lineCounter, file);
  if (document.errors.length > 0) {
    throw new LabSpecError(document.errors.map((error) => ({ ...locate([]), ...positionOf(lineCounter, error.pos[0]), message: error.message.split('\n')[0] })));
  }
  const raw = document.toJS() ?? {};
  if (!validate(raw)) {
    throw new LabSpecError((validate.errors ?? []).filter(isUseful).map((error) => schemaProblem(error, locate)));
  }
  const problems = checkReferences(raw as RawLab).map(({ path, message }) => ({ ...locate(path), message }));
  if (problems.length > 0) throw new LabSpecError(problems);
  return toLabSpec(raw as RawLab);
}

type Path = (string | number)[];
type RawLab = Omit<LabSpec, 'postgres' | 'redis'> & { postgres: 'managed' | { url: string }; redis: 'managed' | { url: string } };

/** Finds where a path is written: the key itself for a mapping entry, the item for a list entry. */
function locator(document: Document, lineCounter: LineCounter, file: string) {
  return (path: Path): SpecProblem => {
    const last = path.at(-1);
    const parent = path.length > 0 ? document.getIn(path.slice(0, -1), true) : undefined;
    const keyNode = isMap(parent) ? parent.items.find((pair) => isScalar(pair.key) && pair.key.value === last)?.key : undefined;
    const node = (keyNode ?? document.getIn(path, true)) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0] ?? 0;
    return { file, path: formatPath(path), message: '', ...positionOf(lineCounter, offset) };
  };
}

function positionOf(lineCounter: LineCounter, offset: number) {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function formatPath(path: Path): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/** oneOf reports every branch; the branch errors say more than the summary. */
function isUseful(error: ErrorObject): boolean {
  return error.keyword !== 'oneOf' && error.keyword !== 'if';
}

function schemaProblem(error: ErrorObject, locate: (path: Path) => SpecProblem): SpecProblem {
  const path: Path = error.instancePath.split('/').slice(1).map((part) => (/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~')));
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(error.params.additionalProperty);
      return { ...locate([...path, key]), message: `unknown key "${key}"` };
    }
    case 'required':
      return { ...locate(path), message: `"${error.params.missingProperty}" is required` };
    case 'enum':
      return { ...locate(path), message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { ...locate(path), message: `must be "managed" or { url: ... }` };
    case 'pattern':
      return { ...locate(path), message: path.at(-1) === 'name' || typeof path.at(-1) === 'number'
        ? 'must be lower-case letters, digits and dashes, starting with a letter (at most 31 characters)'
        : `does not match ${error.params.pattern}` };
    default:
      return { ...locate(path), message: error.message ?? 'is invalid' };
  }
}

interface Reference {
  path: Path;
  message: string;
}

/** What a schema cannot say: names that must exist, names that must be unique, ports that must differ. */
function checkReferences(lab: RawLab): Reference[] {
  const problems: Reference[] = [];
  if (lab.chain.kind === 'bitcoind') {
    problems.push({ path: ['chain', 'kind'], message: 'bitcoind is not launched by this version of reglab (its driver exists, its launch does not): use btcd' });
  }
  const nodes = new Map<string, LabSpec['nodes'][number]>();
  lab.nodes.forEach((node, index) => {
    if (nodes.has(node.name)) problems.push({ path: ['nodes', index, 'name'], message: `duplicate node name "${node.name}"` });
    nodes.set(node.name, node);
    if (node.kind === 'rln' && lab.runtime !== 'docker') {
      problems.push({ path: ['nodes', index, 'kind'], message: 'rln nodes run only in the docker runtime (set runtime: docker)' });
    }
    if (node.kind === 'rln' && !lab.indexer.enabled) {
      problems.push({ path: ['nodes', index, 'kind'], message: 'rln nodes follow the chain through the indexer (indexer.enabled: true)' });
    }
  });
  const reservedNames = new Set(['chain', 'indexer', 'postgres', 'redis', 'wallet-server', 'faucet', 'chain-adapter']);
  lab.nodes.forEach((node, index) => {
    if (reservedNames.has(node.name)) problems.push({ path: ['nodes', index, 'name'], message: `"${node.name}" is the name of a lab service; pick another node name` });
  });
  const endpoints = (from: string, to: string) => [from, to].sort().join('\u0000');
  const seenChannels = new Set<string>();
  lab.channels.forEach((channel, index) => {
    for (const end of ['from', 'to'] as const) {
      if (!nodes.has(channel[end])) problems.push({ path: ['channels', index, end], message: `no node named "${channel[end]}" (nodes: ${[...nodes.keys()].join(', ') || 'none'})` });
    }
    for (const end of ['from', 'to'] as const) {
      if (nodes.get(channel[end])?.kind === 'rln') problems.push({ path: ['channels', index, end], message: 'channels of rln nodes (asset channels) are opened through RLN\'s API, not from lab.yaml' });
    }
    if (channel.from === channel.to) problems.push({ path: ['channels', index, 'to'], message: 'a channel needs two different nodes' });
    if (channel.push_sat >= channel.capacity_sat) problems.push({ path: ['channels', index, 'push_sat'], message: `push_sat must be less than capacity_sat (${channel.capacity_sat})` });
    const key = endpoints(channel.from, channel.to);
    if (seenChannels.has(key)) problems.push({ path: ['channels', index], message: `a second channel between ${channel.from} and ${channel.to}` });
    seenChannels.add(key);
  });
  for (const service of ['wallet-server', 'faucet'] as const) {
    const settings = lab.services[service];
    if (!settings) continue;
    const node = nodes.get(settings.node);
    if (!node) problems.push({ path: ['services', service, 'node'], message: `no node named "${settings.node}"` });
    else if (service === 'faucet' && node.kind !== 'lnd') problems.push({ path: ['services', service, 'node'], message: 'the faucet sends from an lnd node wallet' });
  }
  if (lab.services['chain-adapter'] && !lab.indexer.enabled) {
    problems.push({ path: ['services', 'chain-adapter'], message: 'the chain adapter needs the indexer (indexer.enabled: true)' });
  }
  const ports = new Map<number, string>();
  for (const service of ['wallet-server', 'faucet', 'chain-adapter'] as const) {
    const port = lab.services[service]?.port;
    if (port === undefined) continue;
    const other = ports.get(port);
    if (other) problems.push({ path: ['services', service, 'port'], message: `port ${port} is already taken by ${other}` });
    ports.set(port, service);
  }
  return problems;
}

function toLabSpec(raw: RawLab): LabSpec {
  const managedOrUrl = (value: RawLab['postgres']): ExternalOrManaged => (value === 'managed' ? { managed: true } : { managed: false, url: value.url });
  return { ...raw, postgres: managedOrUrl(raw.postgres), redis: managedOrUrl(raw.redis) };
}

