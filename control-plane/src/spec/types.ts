import type { ActivityRequest } from '../activity/request.js';
import type { LdkNodeSettings } from '../nodes/ldk/settings.js';
import type { LndNodeSettings } from '../nodes/lnd/settings.js';
import type { NodeKind } from '../nodes/registry.js';

/** lab.yaml, after validation and defaults. */
export type RuntimeName = 'process' | 'docker' | 'kubernetes';

export interface LabSpec {
  name: string;
  runtime: RuntimeName;
  /** runtime: kubernetes only: where and how the lab runs on the cluster. */
  kubernetes?: KubernetesSpec;
  chain: { kind: 'btcd' | 'bitcoind' };
  indexer: { enabled: boolean };
  nodes: NodeSpec[];
  channels: ChannelSpec[];
  assets: AssetSpec[];
  services: ServicesSpec;
  postgres: ExternalOrManaged;
  redis: ExternalOrManaged;
  mining: { initial_blocks: number; auto_mine_seconds: number; max_tip_age_seconds: number };
  /** `faults`: the lab's links go through Toxiproxy, where `reglab net` shapes them (docs/network-faults.md). */
  network: { faults: boolean };
  fees: FeesSpec;
  supervision: SupervisionSpec;
  /** `answer_timeout_seconds`: how long `reglab status` waits for each node's figures, and the chain's. */
  status: { answer_timeout_seconds: number };
  /** What `reglab activity start` runs when asked for nothing else; `start`: from the moment the lab is ready. */
  activity?: ActivityRequest & { start: boolean };
}

/**
 * The lab's fee market, seen the same by lnd, LDK, the chain adapter and Electrum: one fixed rate
 * (sat/vB) at every confirmation target, or the chain node's own estimates.
 */
export type FeesSpec = { policy: 'fixed'; sat_per_vbyte: number } | { policy: 'node' };

/** A lab that names no fee policy: 1 sat/vB, the relay minimum, whatever traffic the chain has seen. */
export const DEFAULT_FEES = { policy: 'fixed', sat_per_vbyte: 1 } as const satisfies FeesSpec;

/** on-failure: restart a service that died or stopped answering; always: also one that exited cleanly; no: never. */
export type RestartPolicy = 'on-failure' | 'always' | 'no';

export interface SupervisionSpec {
  /** The policy of every service that names none itself. */
  restart: RestartPolicy;
  /** Restarts within `window_seconds` after which a service stays failed. */
  max_restarts: number;
  window_seconds: number;
  /** How often each service's readiness probe runs once the lab is up. */
  probe_interval_seconds: number;
  /** Consecutive failed probes after which a running service counts as unhealthy. */
  unhealthy_after: number;
  /** How long a start (bring-up, `reglab start`, a restart) may take to be ready before it is given up. */
  start_timeout_seconds: number;
  /** Policies by service name (postgres, redis, chain, indexer, or any node or lab service). */
  services: Record<string, RestartPolicy>;
}

/** A node of nodes[]; the settings of one kind (KindDefinition.nodeSettings) only on nodes of that kind. */
export interface NodeSpec extends Partial<LdkNodeSettings>, Partial<LndNodeSettings> {
  name: string;
  kind: NodeKind;
  funding_sat: number;
  restart?: RestartPolicy;
}

export interface ChannelSpec {
  from: string;
  to: string;
  capacity_sat: number;
  push_sat: number;
}

/** An RGB asset issued on `issuer` at bring-up; `distribute` sends amounts of it to other nodes. */
export interface AssetSpec {
  /** The lab's name of the asset (a CFA carries no ticker on-chain: there it is the lab's label only). */
  ticker: string;
  /** Defaults to the ticker. */
  name: string;
  schema: 'nia' | 'cfa' | 'uda';
  precision: number;
  supply: number;
  issuer: string;
  distribute: Record<string, number>;
}

/** An RGB asset of the lab the faucet gives: `amount` per claim, paid from `node`. */
export interface FaucetAssetSpec {
  ticker: string;
  amount: number;
  node: string;
}

export interface ServicesSpec {
  'wallet-server'?: {
    node: string;
    port?: number;
    admin_pubkeys: string[];
    public_url?: string;
    restart?: RestartPolicy;
  };
  faucet?: {
    node: string;
    port?: number;
    claim_sat: number;
    cooldown_seconds: number;
    asset?: FaucetAssetSpec;
    /** Whose X-Forwarded-For names the client ([]: no one's); this machine's connections when left out. */
    trust_proxy?: string[];
    restart?: RestartPolicy;
  };
  'chain-adapter'?: { port?: number; restart?: RestartPolicy };
}

export type ExternalOrManaged = { managed: true } | { managed: false; url: string };

/**
 * How the control plane reaches a kubernetes lab's services: through the API server's port-forward
 * (from outside the cluster), or straight to their Services by name (from a pod of the lab's namespace).
 */
export type KubernetesAccess = 'port-forward' | 'service';

/** A container's CPU and memory, as Kubernetes quantities ("250m", "512Mi"). */
export interface ResourceAmounts {
  cpu?: string;
  memory?: string;
}

export interface ServiceResources {
  requests?: ResourceAmounts;
  limits?: ResourceAmounts;
}

/** lab.yaml's `kubernetes:` block, as written (defaults are resolved by the runtime: runtimes/kubernetes/settings.ts). */
export interface KubernetesSpec {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  storage_class?: string;
  /** The size each claim asks for. */
  storage_size?: string;
  image_registry?: string;
  image_pull_policy?: 'Always' | 'IfNotPresent' | 'Never';
  access?: KubernetesAccess;
  /** Requests and limits by service name or by kind; `default` for every other service. */
  resources?: Record<string, ServiceResources>;
}
