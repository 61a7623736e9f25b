// The pods of one lab, kept up to date by a watch on the API server: the supervisor's liveness
// checks read them here rather than asking the API server for each service every two seconds, and
// a container that dies (or that the kubelet restarts) is told at once.
import type { V1Pod } from '@kubernetes/client-node';
import { sleep } from '../../../../lib/wait.js';
import type { Cluster } from './client.js';

/** After the watch broke on an error (the API server away), the wait before the pods are listed again. */
const RELIST_MS = 1_000;

export type PodListener = (pod: V1Pod, deleted: boolean) => void;

export class PodWatch {
  private readonly pods = new Map<string, V1Pod>();
  private readonly listeners = new Set<PodListener>();
  /** Whether `pods` is the namespace's current set (listed, and watched since). */
  private synced = false;
  private version = '';
  private running = false;
  private stopped = false;
  private abort?: AbortController;

  constructor(
    private readonly cluster: Cluster,
    private readonly namespace: string,
    private readonly selector: string,
  ) {}

  /** Starts listing and watching, once. */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.synced = false;
    this.abort?.abort();
  }

  /** The pod named so as the watch knows it (undefined: there is none), or 'unknown' while the watch is not in sync. */
  pod(name: string): V1Pod | undefined | 'unknown' {
    return this.synced ? this.pods.get(name) : 'unknown';
  }

  /** Calls `listener` on every change of a pod; answers how to stop. */
  onChange(listener: PodListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async run(): Promise<void> {
    const { Watch } = await import('@kubernetes/client-node');
    // the client ends a watch that heard nothing for 30 s: it resumes from the last version seen
    const watch = new Watch(this.cluster.config);
    while (!this.stopped) {
      try {
        if (!this.version) await this.list();
        const ended = await this.watchOnce(watch);
        if (ended) throw ended;
      } catch {
        this.synced = false;
        this.version = '';
        if (!this.stopped) await sleep(RELIST_MS);
      }
    }
  }

  private async list(): Promise<void> {
    const list = await this.cluster.core.listNamespacedPod({ namespace: this.namespace, labelSelector: this.selector });
    const names = new Set(list.items.map((pod) => pod.metadata!.name!));
    for (const [name, pod] of this.pods)
      if (!names.has(name)) {
        this.pods.delete(name);
        this.tell(pod, true);
      }
    for (const pod of list.items) {
      this.pods.set(pod.metadata!.name!, pod);
      this.tell(pod, false);
    }
    this.version = list.metadata?.resourceVersion ?? '';
    this.synced = true;
  }

  /** One watch request, from the last version seen; resolves when it ends: with its error, or undefined when it just closed. */
  private watchOnce(watch: import('@kubernetes/client-node').Watch): Promise<Error | undefined> {
    return new Promise((resolve) => {
      let failed: Error | undefined;
      void watch
        .watch(
          `/api/v1/namespaces/${this.namespace}/pods`,
          { labelSelector: this.selector, resourceVersion: this.version, allowWatchBookmarks: true },
          (type: string, object: V1Pod & { code?: number }) => {
            if (type === 'ERROR') {
              failed = new Error(`the pod watch was refused (${object.code})`); // 410: the version is too old
              return;
            }
            this.version = object.metadata?.resourceVersion ?? this.version;
            if (type === 'BOOKMARK') return;
            const name = object.metadata!.name!;
            if (type === 'DELETED') this.pods.delete(name);
            else this.pods.set(name, object);
            this.tell(object, type === 'DELETED');
          },
          (error: unknown) => {
            // a quiet watch closed by its client-side timeout resumes where it was
            const quiet = (error as Error | null)?.name === 'TimeoutError';
            resolve(failed ?? (error && !quiet ? (error as Error) : undefined));
          },
        )
        .then((controller) => {
          this.abort = controller;
          if (this.stopped) controller.abort();
        });
    });
  }

  private tell(pod: V1Pod, deleted: boolean): void {
    for (const listener of this.listeners) listener(pod, deleted);
  }
}
