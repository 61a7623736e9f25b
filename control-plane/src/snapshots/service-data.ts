import type { LabState, ServiceState } from '../lab/state.js';
import type { Runtime } from '../runtimes/types.js';

/**
 * How a runtime copies a stopped service's data into a snapshot folder and back: the process
 * runtime copies its folder, the docker runtime its volume, the kubernetes runtime its claim.
 * Restoring replaces what was there.
 */
export interface ServiceData {
  /** Copies the service's data into `snapshotDir`; returns how many bytes it holds. */
  save(lab: LabState, service: ServiceState, snapshotDir: string): Promise<number>;
  restore(lab: LabState, service: ServiceState, snapshotDir: string): Promise<void>;
  /**
   * Ends a running service whose data `restore` is about to replace, keeping what runs it for its
   * restart (docker: the container); false when it cannot, and the caller ends it.
   */
  hold?(lab: LabState, service: ServiceState): Promise<boolean>;
}

/** The runtime's way of copying data; the docker (dockerode) and kubernetes ones are loaded only for their labs. */
export async function serviceDataFor(runtime: Runtime): Promise<ServiceData> {
  if (runtime.name === 'process') return (await import('./process-data.js')).processData;
  if (runtime.name === 'kubernetes') {
    const [{ kubernetesData }, { KubernetesRuntime }] = await Promise.all([
      import('./kubernetes-data.js'),
      import('../runtimes/kubernetes/runtime.js'),
    ]);
    if (!(runtime instanceof KubernetesRuntime)) throw new Error('no way to copy the data of this kubernetes runtime');
    return kubernetesData(runtime);
  }
  const [{ dockerData }, { DockerRuntime }] = await Promise.all([
    import('./docker-data.js'),
    import('../runtimes/docker/runtime.js'),
  ]);
  if (!(runtime instanceof DockerRuntime))
    throw new Error(`no way to copy the data of a ${runtime.name} runtime's services`);
  return dockerData(runtime);
}
