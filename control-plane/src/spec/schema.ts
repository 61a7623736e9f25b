import { activityRequestSchema } from '../activity/request.js';
import { DEFAULT_MAX_TIP_AGE_SECONDS } from '../lab/chain-tip.js';
import { DEFAULT_ANSWER_TIMEOUT_SECONDS } from '../lab/inspect.js';
import { allKinds, NODE_KIND_NAMES } from '../nodes/registry.js';
import { assetsSchema } from './assets.js';
import { MAX_PERIOD_SECONDS, MAX_SAT } from './bounds.js';
import { faucetAssetSchema } from './faucet-asset.js';
import { faucetTrustProxySchema } from './faucet-trust-proxy.js';

const name = { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' };
const port = { type: 'integer', minimum: 1024, maximum: 65535 };
/** Bring-up mines these before anything else runs: more would keep a lab coming up for hours. */
const MAX_INITIAL_BLOCKS = 10_000;
// Each number has a maximum: YAML reads 1e400 or .inf as Infinity, which JSON schema's "integer"
// lets through, and a huge figure is a lab that cannot come up (or mines without a pause).
const sat = { type: 'integer', minimum: 0, maximum: MAX_SAT };
const seconds = { type: 'integer', minimum: 0, maximum: MAX_PERIOD_SECONDS };
const restart = { enum: ['on-failure', 'always', 'no'] };
/** The settings of nodes[] that only nodes of one kind take (KindDefinition.nodeSettings). */
const kindSettings = Object.assign({}, ...allKinds().map((kind) => kind.nodeSettings ?? {}));
/** A lab service that runs over one node of the lab, with these settings of its own. */
const serviceOnNode = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: ['node'],
  properties: { node: { type: 'string' }, port, restart, ...properties },
});
const externalOrManaged = {
  oneOf: [
    { const: 'managed' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: { url: { type: 'string', minLength: 1 } },
    },
  ],
};

// Kubernetes' own forms: a DNS label (namespace), a CPU amount ("500m", "1.5") and a byte amount ("512Mi")
const dnsLabel = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' };
const cpu = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?m?$' };
const bytes = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?([KMGTPE]i?)?$' };
const amounts = { type: 'object', additionalProperties: false, properties: { cpu, memory: bytes } };
const serviceResources = {
  type: 'object',
  additionalProperties: false,
  properties: { requests: amounts, limits: amounts },
};

/** runtime: kubernetes: the cluster, the lab's namespace, storage, images, access and resources. */
const kubernetesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kubeconfig: { type: 'string', minLength: 1 },
    context: { type: 'string', minLength: 1 },
    namespace: dnsLabel,
    storage_class: { type: 'string', minLength: 1 },
    storage_size: bytes,
    image_registry: { type: 'string', pattern: '^[^\\s/][^\\s]*[^\\s/]$' },
    image_pull_policy: { enum: ['Always', 'IfNotPresent', 'Never'] },
    access: { enum: ['port-forward', 'service'] },
    resources: { type: 'object', additionalProperties: serviceResources },
  },
};

/** The JSON schema of lab.yaml; defaults fill what a file leaves out. */
export const labSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name,
    runtime: { enum: ['process', 'docker', 'kubernetes'], default: 'process' },
    kubernetes: kubernetesSchema,
    chain: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { kind: { enum: ['btcd', 'bitcoind'], default: 'btcd' } },
    },
    indexer: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { enabled: { type: 'boolean', default: true } },
    },
    nodes: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name,
          kind: { enum: NODE_KIND_NAMES, default: NODE_KIND_NAMES[0] },
          funding_sat: { ...sat, default: 10_000_000 },
          ...kindSettings,
          restart,
        },
      },
    },
    channels: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to', 'capacity_sat'],
        properties: {
          from: { type: 'string' },
          to: { type: 'string' },
          capacity_sat: { ...sat, minimum: 20_000 },
          push_sat: { ...sat, default: 0 },
        },
      },
    },
    assets: assetsSchema,
    services: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        'wallet-server': serviceOnNode({
          admin_pubkeys: { type: 'array', items: { type: 'string', pattern: '^0[23][0-9a-f]{64}$' }, default: [] },
          public_url: {
            type: 'string',
            pattern: '^https?://[^/\\s?#]+/?$',
            description: 'the base URL users reach the wallet server at (Lightning addresses, LNURL callbacks)',
          },
        }),
        faucet: serviceOnNode({
          claim_sat: { ...sat, minimum: 1000, default: 100_000 },
          cooldown_seconds: { ...seconds, default: 900 },
          trust_proxy: faucetTrustProxySchema,
          asset: faucetAssetSchema,
        }),
        'chain-adapter': { type: 'object', additionalProperties: false, properties: { port, restart } },
      },
    },
    postgres: { ...externalOrManaged, default: 'managed' },
    redis: { ...externalOrManaged, default: 'managed' },
    mining: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        initial_blocks: { type: 'integer', minimum: 432, maximum: MAX_INITIAL_BLOCKS, default: 432 },
        auto_mine_seconds: { ...seconds, default: 0 },
        // lnd stops counting itself synced once the tip is two hours old (see lab/chain-tip.ts)
        max_tip_age_seconds: { type: 'integer', minimum: 0, maximum: 7_000, default: DEFAULT_MAX_TIP_AGE_SECONDS },
      },
    },
    network: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        faults: {
          type: 'boolean',
          default: false,
          description:
            'put a proxy (Toxiproxy) on every link between nodes, so that `reglab net` can delay, cut or slow it',
        },
      },
    },
    fees: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        policy: { enum: ['fixed', 'node'], default: 'fixed' },
        // lnd's sweeper caps its fee rates at sweeper.maxfeerate, 1000 sat/vB by default
        sat_per_vbyte: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    },
    supervision: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        restart: { ...restart, default: 'on-failure' },
        max_restarts: { type: 'integer', minimum: 0, maximum: 100, default: 5 },
        window_seconds: { ...seconds, minimum: 1, default: 600 },
        probe_interval_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 10 },
        unhealthy_after: { type: 'integer', minimum: 1, maximum: 100, default: 3 },
        start_timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 90 },
        services: { type: 'object', default: {}, additionalProperties: restart },
      },
    },
    status: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        answer_timeout_seconds: { type: 'number', minimum: 0.1, maximum: 60, default: DEFAULT_ANSWER_TIMEOUT_SECONDS },
      },
    },
    activity: {
      ...activityRequestSchema,
      properties: {
        ...activityRequestSchema.properties,
        start: { type: 'boolean', default: false, description: 'start the activity as soon as the lab is ready' },
      },
    },
  },
} as const;
