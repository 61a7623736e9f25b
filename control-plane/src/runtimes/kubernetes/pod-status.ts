// What a pod's status says of the service it runs, read the way the supervisor needs it. A handle
// names one run of the service's container: the kubelet restarts a container that died in the
// same pod (by the Pod's restartPolicy), counting restarts, so a run is the pod (its uid) and the
// restart count during that run. Pure: the runtime reads pods from its watch (pod-watch.ts).
import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import { containerExit } from '../docker/exit-status.js';
import type { ExitStatus, RuntimeHandle } from '../types.js';

export type KubernetesHandle = Extract<RuntimeHandle, { runtime: 'kubernetes' }>;

/** The container's latest run: its number (the restart count), and whether it is starting, running, or over. */
export interface ContainerRun {
  number: number;
  state: 'starting' | 'running' | 'ended';
  /** How it ended (or why it cannot start), when over. */
  exit?: ExitStatus;
  /** Over for good: the pod will not run it again (its phase is Succeeded or Failed, or it is being deleted). */
  final: boolean;
}

/** Waiting reasons of a container that is on its way to running. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);
/** Waiting reasons of a container that cannot start as it is (its image, its configuration). */
const CANNOT_START = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

/** How a run ended, from the kubelet's record of it: 137 is SIGKILL (what the runner exits with), OOMKilled says so. */
export function exitOfTermination(terminated: V1ContainerStateTerminated, restartCount: number): ExitStatus {
  const exit = containerExit(terminated.exitCode, terminated.reason === 'OOMKilled');
  const reason =
    terminated.reason && terminated.reason !== 'Error' && terminated.reason !== 'Completed'
      ? terminated.reason
      : undefined;
  return { ...exit, ...(reason && !exit.signal?.includes('out of memory') ? { reason } : {}), restartCount };
}

/** The latest run of container `name` in `pod`. */
export function latestRun(pod: V1Pod, name: string): ContainerRun {
  const phase = pod.status?.phase;
  const final = phase === 'Succeeded' || phase === 'Failed' || pod.metadata?.deletionTimestamp !== undefined;
  const status = pod.status?.containerStatuses?.find((candidate) => candidate.name === name);
  if (!status) {
    const unschedulable = pod.status?.conditions?.find(
      (condition) => condition.type === 'PodScheduled' && condition.status === 'False' && condition.message,
    );
    return {
      number: 0,
      state: final ? 'ended' : 'starting',
      final,
      ...(unschedulable ? { exit: { reason: `not scheduled: ${unschedulable.message}` } } : {}),
    };
  }
  const number = status.restartCount;
  const { running, terminated, waiting } = status.state ?? {};
  if (running && !final) return { number, state: 'running', final };
  if (terminated) return { number, state: 'ended', exit: exitOfTermination(terminated, number), final };
  if (waiting && CANNOT_START.has(waiting.reason ?? ''))
    return {
      number,
      state: 'ended',
      exit: { reason: `${waiting.reason}: ${waiting.message ?? 'the container cannot start'}`, restartCount: number },
      final,
    };
  // waiting out the kubelet's back-off after a crash: the run that ended is the last one
  if (waiting && !STARTING.has(waiting.reason ?? '') && status.lastState?.terminated)
    return { number, state: 'ended', exit: exitOfTermination(status.lastState.terminated, number), final };
  return { number, state: final ? 'ended' : 'starting', final };
}

/**
 * Whether the run a handle names still runs, or is starting. A handle may name the run after the
 * latest (one taken back while the kubelet waits to restart the container): it is starting as long
 * as the pod will run the container again.
 */
export function runAlive(pod: V1Pod | undefined, handle: KubernetesHandle, container: string): boolean {
  if (!pod || pod.metadata?.uid !== handle.uid) return false;
  const run = latestRun(pod, container);
  if (run.number === handle.restarts) return run.state !== 'ended';
  return run.number === handle.restarts - 1 && run.state === 'ended' && !run.final;
}

/** How the run a handle names ended, when the pod still tells. */
export function runExit(pod: V1Pod | undefined, handle: KubernetesHandle, container: string): ExitStatus | undefined {
  if (!pod || pod.metadata?.uid !== handle.uid) return undefined;
  const run = latestRun(pod, container);
  if (run.number === handle.restarts) return run.state === 'ended' ? run.exit : undefined;
  if (run.number === handle.restarts + 1) {
    const last = pod.status?.containerStatuses?.find((candidate) => candidate.name === container)?.lastState
      ?.terminated;
    return last ? exitOfTermination(last, run.number) : undefined;
  }
  return undefined;
}

/**
 * The handle for the run to take back in a pod found running the service (the supervisor restarts
 * a service the kubelet restarts): the latest run when it is starting or running, else the next.
 */
export function handleToTakeBack(pod: V1Pod, container: string): KubernetesHandle {
  const run = latestRun(pod, container);
  return {
    runtime: 'kubernetes',
    namespace: pod.metadata!.namespace!,
    pod: pod.metadata!.name!,
    uid: pod.metadata!.uid!,
    restarts: run.state === 'ended' ? run.number + 1 : run.number,
  };
}
