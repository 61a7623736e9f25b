// The cluster's API, as one lab's settings name it: a kubeconfig file and context, or the pod's own
// service account. @kubernetes/client-node is loaded only here, when a kubernetes lab needs it.
import { existsSync } from 'node:fs';
import type { CoreV1Api, DiscoveryV1Api, KubeConfig } from '@kubernetes/client-node';
import { DomainError, unavailable } from '../../../../lib/errors.js';
import { ENGINE_UNAVAILABLE } from '../types.js';
import type { KubernetesSettings } from './settings.js';

export interface Cluster {
  config: KubeConfig;
  core: CoreV1Api;
  /** EndpointSlices: which pods a Service routes to. */
  discovery: DiscoveryV1Api;
  /** The API server's address (for messages). */
  server: string;
}

const HINT =
  "Check that the cluster runs (the test cluster: `scripts/test-cluster.sh status`) and that lab.yaml's kubernetes.kubeconfig and context name it.";

/** Connects to the cluster the settings name; throws ENGINE_UNAVAILABLE with what is missing. */
export async function connectCluster(settings: Pick<KubernetesSettings, 'kubeconfig' | 'context'>): Promise<Cluster> {
  const client = await import('@kubernetes/client-node');
  const config = new client.KubeConfig();
  if (settings.kubeconfig === undefined) config.loadFromCluster();
  else {
    if (!existsSync(settings.kubeconfig))
      throw unavailable(ENGINE_UNAVAILABLE, `no kubeconfig at ${settings.kubeconfig}. ${HINT}`);
    config.loadFromFile(settings.kubeconfig);
  }
  if (settings.context !== undefined) {
    if (!config.getContexts().some((context) => context.name === settings.context))
      throw unavailable(
        ENGINE_UNAVAILABLE,
        `the kubeconfig ${settings.kubeconfig} has no context "${settings.context}" (contexts: ${
          config
            .getContexts()
            .map((context) => context.name)
            .join(', ') || 'none'
        })`,
      );
    config.setCurrentContext(settings.context);
  }
  const server = config.getCurrentCluster()?.server;
  if (!server) throw unavailable(ENGINE_UNAVAILABLE, `the kubeconfig ${settings.kubeconfig} names no cluster. ${HINT}`);
  return {
    config,
    core: config.makeApiClient(client.CoreV1Api),
    discovery: config.makeApiClient(client.DiscoveryV1Api),
    server,
  };
}

/** The HTTP status of the API server's refusal, when `error` is one. */
export const statusOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
};
export const isNotFound = (error: unknown) => statusOf(error) === 404;
export const isConflict = (error: unknown) => statusOf(error) === 409;

/** Throws `error` unless it is the API server's 404: what is gone is deleted already. */
export const ignoreNotFound = (error: unknown) => {
  if (!isNotFound(error)) throw error;
};

const UNREACHED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether `error` says the API server could not be reached at all (rather than refusing a call). */
export function unreached(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (UNREACHED.has(String((cause as { code?: unknown }).code))) return true;
  }
  return false;
}

/** An API server's refusal, told in its own words, its HTTP status kept as `code`. */
export class ClusterRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClusterRefusal';
  }
}

/**
 * A call's error as the control plane tells it: an API server that does not answer is
 * ENGINE_UNAVAILABLE (503); its refusal is its Status message (the client's own error text is a
 * dump of the whole response).
 */
export function asReachError(error: unknown, server: string): unknown {
  const status = statusOf(error);
  if (status !== undefined && !(error instanceof ClusterRefusal) && 'body' in (error as object))
    return new ClusterRefusal(status, `the Kubernetes API server refused: ${refusalOf(error)}`, { cause: error });
  if (!unreached(error)) return error;
  return new DomainError(
    'unavailable',
    ENGINE_UNAVAILABLE,
    `the Kubernetes API server at ${server} does not answer (${(error as Error).message}). ${HINT}`,
    {},
    { cause: error },
  );
}

/** What the API server answered, for messages: its Status message when it sent one. */
export function refusalOf(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  const parsed = typeof body === 'string' ? safeJson(body) : body;
  const message = (parsed as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? `${message} (HTTP ${statusOf(error)})` : (error as Error).message;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
