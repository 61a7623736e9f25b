// The kubernetes runtime: each service of a lab runs in a Pod of the lab's namespace, with a
// Service by its name and its data on a claim (docs/kubernetes-runtime.md). The kubelet restarts a
// container that dies, by the Pod's restart policy (lab.yaml's); the supervisor sees each crash
// through the pod watch and takes the service back where the kubelet restarted it.
import type { V1Pod } from '@kubernetes/client-node';
import { sleep, waitFor } from '../../../../lib/wait.js';
import type {
  EngineReach,
  ExitStatus,
  LabHandleInfo,
  LabLayout,
  PrepareOptions,
  Runtime,
  RuntimeHandle,
  ServiceLocation,
  StartRequest,
} from '../types.js';
import type { ImageId } from '../../images/types.js';
import { kindDefinition, type ServiceKind } from '../../nodes/registry.js';
import { EngineReachRecord } from '../docker/reach.js';
import { CONTAINER_DATA_DIR } from '../container-placement.js';
import { asReachError, type Cluster, connectCluster, isNotFound } from './client.js';
import { execIn, type ExecOptions, type ExecResult } from './exec.js';
import {
  deletePod,
  ensureClaim,
  ensureNamespace,
  ensureService,
  readPod,
  removeLabObjects,
  serviceAddresses,
  serviceRoutesTo,
} from './lab-objects.js';
import { claimManifest, dataPodManifest, namespaceManifest, serviceManifest } from './manifests.js';
import { ANNOTATIONS, containerName, dataPodName, LABELS, labSelector, podName } from './names.js';
import { handleToTakeBack, type KubernetesHandle, latestRun, runAlive, runExit } from './pod-status.js';
import { PodWatch } from './pod-watch.js';
import { PortForwards } from './port-forward.js';
import { podImageOf, serviceObjects } from './service-objects.js';
import { type KubernetesSettings, podNamespace } from './settings.js';

export interface KubernetesRuntimeOptions {
  /** The lab this runtime runs (one runtime per lab: each lab.yaml names its cluster and namespace). */
  lab: string;
  settings: KubernetesSettings;
  /** Seconds a pod gets to stop after its stop signal (its terminationGracePeriodSeconds). */
  stopTimeoutSeconds?: number;
}

/** Waiting reasons whose fix is the images: loaded into the nodes, or pushed to the registry. */
const IMAGE_PROBLEM = /ErrImageNeverPull|ErrImagePull|ImagePullBackOff|InvalidImageName/;
/** SIGKILL to every process of the container but PID 1 (the runner) and the shell itself. */
const KILL_ALL_BUT_RUNNER = ['/bin/sh', '-c', 'kill -s KILL -- -1'];
/** How long a start waits for the Service to route to a new pod; the probe's own timeout still applies after. */
const ROUTE_WAIT_MS = 60_000;
const ROUTE_POLL_MS = 100;
/** A file found missing is not asked for again (an exec each time) within this long. */
const MISSING_FILE_MS = 250;

export class KubernetesRuntime implements Runtime {
  readonly name = 'kubernetes' as const;
  readonly restartsServices = true;
  private cluster?: Promise<Cluster>;
  private readonly reach = new EngineReachRecord();
  private watch?: PodWatch;
  private forwards?: PortForwards;
  /** Files read from a pod's data folder, by pod uid and path: certificates and macaroons stay while the pod does. */
  private readonly files = new Map<string, Buffer | { missingSince: number; error: Error }>();

  constructor(private readonly options: KubernetesRuntimeOptions) {}

  get settings(): KubernetesSettings {
    return this.options.settings;
  }

  get namespace(): string {
    return this.settings.namespace;
  }

  /** The cluster's API; a failed connection is not kept (the cluster may be started after the control plane). */
  connected(): Promise<Cluster> {
    this.cluster ??= connectCluster(this.settings).catch((error: unknown) => {
      this.cluster = undefined;
      this.reach.record(error);
      throw error;
    });
    return this.cluster;
  }

  /** Runs a call to the API server: an API server that does not answer is told as ENGINE_UNAVAILABLE, and remembered. */
  async call<T>(work: (cluster: Cluster) => Promise<T>): Promise<T> {
    const cluster = await this.connected();
    try {
      const result = await work(cluster);
      this.reach.record(undefined, cluster.server);
      return result;
    } catch (error) {
      const told = asReachError(error, cluster.server);
      this.reach.record(told, cluster.server);
      throw told;
    }
  }

  engineReach(): EngineReach | undefined {
    return this.reach.current;
  }

  async checkEngine(): Promise<void> {
    await this.call((cluster) => cluster.core.listNamespacedPod({ namespace: this.namespace, limit: 1 }));
  }

  leftInEngine(lab: LabHandleInfo): string {
    const server = this.reach.current?.address ?? 'the cluster';
    return `its namespace ${this.namespace} on ${server} (objects labelled ${LABELS.lab}=${lab.name}) stays there until a lab named ${lab.name} is brought up there again, which removes it first, or \`kubectl delete namespace ${this.namespace}\``;
  }

  /**
   * The lab's namespace, and nothing in it that an earlier lab of this name left (its claims but
   * those of `dataRestored`, which a snapshot's restore writes over); a Service for each of
   * `options.services`, so that every pod is told the addresses of all of them (start); the pod
   * watch started.
   */
  async prepareLab(
    lab: LabHandleInfo,
    images: Record<string, string> = {},
    options: PrepareOptions = {},
  ): Promise<void> {
    for (const [kind, recipe] of Object.entries(images)) podImageOf(kind, recipe as ImageId, this.settings);
    const problem =
      this.settings.access === 'service' ? serviceAccessProblem(this.namespace, podNamespace()) : undefined;
    if (problem) throw new Error(problem);
    await this.call(async (cluster) => {
      await removeLabObjects(cluster, lab.name, this.namespace, {
        keepClaimsOf: options.dataRestored ?? [],
        namespace: !options.dataRestored?.length,
      });
      await ensureNamespace(cluster, namespaceManifest({ lab: lab.name, namespace: this.namespace }));
      // the claims too: each is bound while the services before it start, and the scheduler does not
      // set aside (for 10 to 15 s) a pod whose claim is not bound yet
      await Promise.all(
        Object.entries(options.services ?? {}).flatMap(([service, { kind, containerPorts }]) => [
          this.ensureServiceOf(cluster, lab.name, service, kind, containerPorts),
          ...(kindDefinition(kind as ServiceKind).stateless
            ? []
            : [this.ensureClaimOf(cluster, lab.name, service, kind)]),
        ]),
      );
    });
    await this.startWatch(lab.name);
  }

  /** The service's Service, made when missing. */
  private ensureServiceOf(
    cluster: Cluster,
    lab: string,
    service: string,
    kind: string,
    containerPorts: Record<string, number>,
  ): Promise<void> {
    return ensureService(cluster, serviceManifest({ lab, namespace: this.namespace, service, kind }, containerPorts));
  }

  /** The claim of the service's data, made when missing. */
  private ensureClaimOf(cluster: Cluster, lab: string, service: string, kind: string): Promise<void> {
    return ensureClaim(
      cluster,
      claimManifest(
        { lab, namespace: this.namespace, service, kind },
        { size: this.settings.storageSize, storageClass: this.settings.storageClass },
      ),
    );
  }

  private async startWatch(lab: string): Promise<PodWatch> {
    if (!this.watch) {
      this.watch = new PodWatch(await this.connected(), this.namespace, labSelector(lab));
      this.watch.start();
    }
    return this.watch;
  }

  /** The lab's host ports listen again (a control plane that restarted takes its labs back). */
  async reattachLab(lab: LabLayout): Promise<void> {
    await this.startWatch(lab.name);
    for (const [service, state] of Object.entries(lab.services))
      await this.forward(service, state.hostPorts, state.containerPorts, state.public);
  }

  /**
   * Runs the service in its pod: a new one, or the one the kubelet restarted it in when that pod
   * was made for the same launch (the supervisor takes a crashed service back there).
   */
  async start(request: StartRequest): Promise<RuntimeHandle> {
    const { lab, service } = request;
    await this.startWatch(lab.name);
    const handle = await this.call(async (cluster) => {
      await this.ensureServiceOf(cluster, lab.name, service, request.kind, request.containerPorts);
      const objects = serviceObjects(request, this.settings, {
        stopTimeoutSeconds: this.options.stopTimeoutSeconds,
        addresses: await serviceAddresses(cluster, this.namespace, lab.name),
      });
      if (objects.claim) await ensureClaim(cluster, objects.claim);
      const existing = await this.podNow(cluster, podName(service));
      if (
        existing &&
        !latestRun(existing, containerName(service)).final &&
        existing.metadata?.annotations?.[ANNOTATIONS.launch] === objects.pod.metadata!.annotations![ANNOTATIONS.launch]
      )
        return handleToTakeBack(existing, containerName(service));
      if (existing) await deletePod(cluster, this.namespace, podName(service), { graceSeconds: 0 });
      const created = await cluster.core.createNamespacedPod({ namespace: this.namespace, body: objects.pod });
      return handleToTakeBack(created, containerName(service));
    });
    await this.waitRouted(handle);
    await this.forward(service, request.hostPorts, request.containerPorts, request.public);
    return handle;
  }

  /**
   * Waits until the service's Service routes to its pod (an EndpointSlice lists the pod's address),
   * so that what depends on the service, started once it answers its probe, finds it by its name.
   * A pod that cannot run (it ended, it is gone, the scheduler cannot place it) is left to the
   * probe and the supervisor to tell, as is one that has no address after ROUTE_WAIT_MS.
   */
  private async waitRouted(handle: KubernetesHandle): Promise<void> {
    const container = containerName(handle.pod);
    const deadline = Date.now() + ROUTE_WAIT_MS;
    while (Date.now() < deadline) {
      const pod = await this.call((cluster) => this.podNow(cluster, handle.pod));
      const run = pod?.metadata?.uid === handle.uid ? latestRun(pod, container) : undefined;
      if (!run || run.state === 'ended' || run.exit) return;
      if (await this.call((cluster) => serviceRoutesTo(cluster, this.namespace, handle.pod, handle.uid))) return;
      await sleep(ROUTE_POLL_MS);
    }
  }

  /**
   * Listens on the service's host ports here, each carried to its pod (port-forward.ts); nothing
   * with `access: service`, where the control plane reaches the service by its name.
   */
  private async forward(
    service: string,
    hostPorts: Record<string, number>,
    containerPorts: Record<string, number>,
    open?: boolean,
  ): Promise<void> {
    if (this.settings.access === 'service') return;
    this.forwards ??= new PortForwards(await this.connected(), this.namespace);
    for (const [portName, hostPort] of Object.entries(hostPorts)) {
      const containerPort = containerPorts[portName];
      if (containerPort !== undefined)
        await this.forwards.open({ pod: podName(service), containerPort, hostPort, public: open });
    }
  }

  /** The pod as the watch knows it, or as the API server answers when the watch is not in sync. */
  private async podNow(cluster: Cluster, name: string): Promise<V1Pod | undefined> {
    const known = this.watch?.pod(name) ?? 'unknown';
    return known === 'unknown' ? readPod(cluster, this.namespace, name) : known;
  }

  private pod(handle: RuntimeHandle): Promise<V1Pod | undefined> {
    return this.call((cluster) => this.podNow(cluster, kubernetesHandle(handle).pod));
  }

  /** Deletes the pod: the kubelet sends the stop signal (a preStop hook first for another one), then SIGKILL after the grace period. */
  async stop(handle: RuntimeHandle): Promise<void> {
    const { pod, uid } = kubernetesHandle(handle);
    await this.call((cluster) =>
      deletePod(cluster, this.namespace, pod, { graceSeconds: this.options.stopTimeoutSeconds ?? 15, uid }),
    );
  }

  /** Ends the pod at once (its data is about to be replaced): SIGKILL, unless the kind must stop cleanly. */
  async end(handle: RuntimeHandle, signal: NodeJS.Signals): Promise<void> {
    if (signal !== 'SIGKILL') return this.stop(handle);
    const { pod, uid } = kubernetesHandle(handle);
    await this.call((cluster) => deletePod(cluster, this.namespace, pod, { graceSeconds: 0, uid }));
  }

  /**
   * A crash: SIGKILL to the service's processes inside its container (every process but the
   * runner, PID 1, which then ends with the service's status, 137); the kubelet restarts the
   * container by the pod's policy. A run that is over already is left alone.
   */
  async kill(handle: RuntimeHandle): Promise<void> {
    const target = kubernetesHandle(handle);
    const pod = await this.pod(handle);
    if (
      !pod ||
      !runAlive(pod, target, containerName(target.pod)) ||
      latestRun(pod, containerName(target.pod)).state !== 'running'
    )
      return;
    // `--`: dash's kill takes a bare -1 for an option, and refuses it
    const result = await this.exec(target.pod, KILL_ALL_BUT_RUNNER).catch((error: unknown) => error as Error);
    const failed =
      result instanceof Error
        ? result
        : result.code !== 0
          ? new Error(`kill in ${target.pod} failed (exit ${result.code}): ${result.stderr.trim()}`)
          : undefined;
    if (failed && (await this.isAlive(handle))) throw failed;
  }

  async isAlive(handle: RuntimeHandle): Promise<boolean> {
    const target = kubernetesHandle(handle);
    return runAlive(await this.pod(handle), target, containerName(target.pod));
  }

  async exitStatus(handle: RuntimeHandle): Promise<ExitStatus | undefined> {
    const target = kubernetesHandle(handle);
    const pod = await this.pod(handle);
    if (!pod || pod.metadata?.uid !== target.uid) return { reason: 'its pod was deleted' };
    const exit = runExit(pod, target, containerName(target.pod));
    if (exit?.reason && IMAGE_PROBLEM.test(exit.reason))
      return { ...exit, reason: `${exit.reason} (${this.imageHint()})` };
    return exit;
  }

  private imageHint(): string {
    return this.settings.imageRegistry
      ? `push the lab's images with \`reglab images push ${this.settings.imageRegistry}\``
      : "load the lab's images into the cluster's nodes (`reglab images load`, docs/kubernetes-runtime.md), or name a registry in kubernetes.image_registry";
  }

  /** Every change of one of the lab's pods that may be a death (a run ended, a restart, a pod gone) is told at once. */
  watchExits(lab: LabHandleInfo, onExit: () => void): () => void {
    let unwatch: (() => void) | undefined;
    let stopped = false;
    void this.startWatch(lab.name).then(
      (watch) => {
        if (stopped) return;
        unwatch = watch.onChange((pod, deleted) => {
          const service = pod.metadata?.labels?.[LABELS.service];
          if (service && (deleted || latestRun(pod, containerName(service)).state !== 'running')) onExit();
        });
      },
      () => undefined,
    );
    return () => {
      stopped = true;
      unwatch?.();
    };
  }

  /** Runs a command in the service's container. */
  exec(service: string, command: string[], options: ExecOptions = {}): Promise<ExecResult> {
    return this.call((cluster) =>
      execIn(
        cluster,
        { namespace: this.namespace, pod: podName(service), container: containerName(service) },
        command,
        options,
      ),
    );
  }

  /**
   * A file of the service's data folder, read in its running container (kept while that pod
   * lasts). A container that is not running yet is not asked: an exec there fails, the file is not
   * there to read yet.
   */
  async readServiceFile(location: ServiceLocation, relativePath: string): Promise<Buffer> {
    const path = `${CONTAINER_DATA_DIR}/${relativePath.replace(/^\/+/, '')}`;
    const pod = await this.call((cluster) => this.podNow(cluster, podName(location.service)));
    const notYet = (why: string) =>
      new Error(`${location.service} has no file ${path} (yet) in lab ${location.lab.name}: ${why}`);
    if (!pod) throw notYet('it has no pod');
    const key = `${pod.metadata?.uid}\n${path}`;
    const known = this.files.get(key);
    if (Buffer.isBuffer(known)) return known;
    if (known && Date.now() - known.missingSince < MISSING_FILE_MS) throw known.error;
    if (latestRun(pod, containerName(location.service)).state !== 'running')
      throw notYet('its container is not running');
    const result = await this.exec(location.service, ['cat', '--', path]).catch((error: unknown) => error as Error);
    if (result instanceof Error || result.code !== 0) {
      const error =
        result instanceof Error
          ? new Error(`cannot read ${path} in ${location.service}'s pod: ${result.message}`, { cause: result })
          : notYet(result.stderr.trim() || `cat ended with ${result.code}`);
      this.files.set(key, { missingSince: Date.now(), error });
      throw error;
    }
    this.files.set(key, result.stdout);
    return result.stdout;
  }

  /** The last lines of the run `handle` names (of the pod's latest one without a handle). */
  async logs(location: ServiceLocation, handle: RuntimeHandle | undefined, lines: number): Promise<string> {
    const name = podName(location.service);
    const container = containerName(location.service);
    return this.call(async (cluster) => {
      const pod = await this.podNow(cluster, name);
      if (!pod) return '';
      let previous = false;
      if (handle) {
        const target = kubernetesHandle(handle);
        const run = latestRun(pod, container);
        if (pod.metadata?.uid !== target.uid || target.restarts < run.number - 1) return '';
        previous = target.restarts === run.number - 1;
      }
      try {
        return await cluster.core.readNamespacedPodLog({
          name,
          namespace: this.namespace,
          container,
          tailLines: lines,
          previous,
        });
      } catch (error) {
        if (isNotFound(error) || (error as { code?: number }).code === 400) return ''; // no log yet (the container is being made)
        throw error;
      }
    });
  }

  /**
   * Removes the lab from the cluster: its namespace when reglab made it (else its objects in it),
   * with the claims and the volumes bound to them. A kubernetes lab keeps no data after `down`.
   */
  async removeLab(lab: LabHandleInfo): Promise<string[]> {
    this.watch?.stop();
    this.watch = undefined;
    await this.forwards?.close();
    this.forwards = undefined;
    this.files.clear();
    await this.call((cluster) => removeLabObjects(cluster, lab.name, this.namespace, { namespace: true }));
    return [];
  }

  /**
   * A pod that holds a stopped service's claim for a snapshot (the service's own image, sleeping),
   * ready to run commands; `work` gets it, and it is deleted after.
   */
  async withDataPod<T>(lab: string, service: string, kind: string, work: (pod: string) => Promise<T>): Promise<T> {
    const image = podImageOf(kind, kindDefinition(kind as ServiceKind).image.id, this.settings);
    const name = dataPodName(service);
    const of = { lab, namespace: this.namespace, service, kind };
    await this.call(async (cluster) => {
      await this.ensureClaimOf(cluster, lab, service, kind);
      await deletePod(cluster, this.namespace, name, { graceSeconds: 0 });
      await cluster.core.createNamespacedPod({ namespace: this.namespace, body: dataPodManifest({ ...of, image }) });
    });
    try {
      await this.waitRunning(name);
      return await work(name);
    } finally {
      await this.call((cluster) => deletePod(cluster, this.namespace, name, { graceSeconds: 0 })).catch(
        () => undefined,
      );
    }
  }

  private async waitRunning(name: string): Promise<void> {
    await waitFor(
      async () => {
        const pod = await this.call((cluster) => readPod(cluster, this.namespace, name));
        const run = pod && latestRun(pod, 'data');
        if (run?.state === 'ended')
          throw new Error(`the data pod ${name} cannot run: ${run.exit?.reason ?? 'it ended'}`);
        return run?.state === 'running';
      },
      {
        timeoutMs: 120_000,
        intervalMs: 100,
        what: `the data pod ${name} to run`,
        stopOn: (error) => String(error).includes('cannot run'),
      },
    );
  }

  /** Runs a command in a data pod (withDataPod). */
  execInDataPod(pod: string, command: string[], options: ExecOptions = {}): Promise<ExecResult> {
    return this.call((cluster) =>
      execIn(cluster, { namespace: this.namespace, pod, container: 'data' }, command, options),
    );
  }
}

/**
 * Why the control plane cannot reach the lab's services by their Services' names from where it runs
 * (`here`: its pod's namespace, undefined outside a pod), or undefined when it can: short names
 * resolve in the pod's own namespace only, and they are the names the nodes' certificates carry.
 */
export function serviceAccessProblem(namespace: string, here: string | undefined): string | undefined {
  if (here === namespace) return undefined;
  const where = here === undefined ? 'runs in no pod' : `runs in namespace ${here}`;
  return `kubernetes.access is service: the control plane reaches the lab's services by their names, which resolve only in a pod of the lab's namespace ${namespace}, and this control plane ${where}. Run it there (\`reglab render --kubernetes --control-plane\`), or set kubernetes.access: port-forward`;
}

function kubernetesHandle(handle: RuntimeHandle): KubernetesHandle {
  if (handle.runtime !== 'kubernetes')
    throw new Error(`the kubernetes runtime cannot handle a ${handle.runtime} handle`);
  return handle;
}
