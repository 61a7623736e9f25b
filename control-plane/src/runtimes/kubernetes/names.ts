// How a lab's objects are named and labelled on a cluster. A lab has a namespace of its own; in it
// each service's Pod and Service carry the service's name (so services reach each other by it, and
// it is each pod's hostname), its claim is <service>-data.

/** The labels on every object of a lab (the same keys as the docker runtime's container labels). */
export const LABELS = {
  lab: 'reglab.lab',
  service: 'reglab.service',
  kind: 'reglab.kind',
  /** On the pod that holds a stopped service's claim for a snapshot (not `service`: its Service must not select it). */
  dataOf: 'reglab.data-of',
} as const;

/** Annotations: `launch` is a digest of the pod's spec, so a pod is taken back only for the same launch. */
export const ANNOTATIONS = {
  launch: 'reglab.launch',
  /** kubectl logs and exec pick this container without -c (postgres and redis pods also have an init container). */
  defaultContainer: 'kubectl.kubernetes.io/default-container',
} as const;

export const defaultNamespace = (lab: string) => `reglab-${lab}`;
export const podName = (service: string) => service;
export const containerName = (service: string) => service;
export const claimName = (service: string) => `${service}-data`;
/** The pod that reads or writes a stopped service's claim for a snapshot: with a dot, which no service's name has. */
export const dataPodName = (service: string) => `${service}.data`;

/** Selects every object of a lab. */
export const labSelector = (lab: string) => `${LABELS.lab}=${lab}`;
