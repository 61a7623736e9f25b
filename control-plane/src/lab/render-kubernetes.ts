// `reglab render --kubernetes`: a lab's Kubernetes objects, made by the runtime's own code from the
// start requests a bring-up makes (lab/start-service.ts, runtimes/kubernetes/service-objects.ts),
// for kubectl, GitOps and Helm users. What a lab only learns while it comes up (btcd's certificate,
// which lnd is given; lnd's macaroon and certificate, which the wallet server and the faucet are
// given; the ids of assets it issues) stands as a placeholder naming it. The lab's secrets (RPC
// password, keys) are made anew at each render, as at each bring-up. With `--control-plane`, it
// prints instead the lab's control plane inside the cluster, which makes those objects itself.
import { randomBytes } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { isMap, parseDocument, stringify } from 'yaml';
import { invalid } from '../../../lib/errors.js';
import type { LabAccess } from '../nodes/types.js';
import { kindDefinition } from '../nodes/registry.js';
import {
  CONTROL_PLANE_IMAGES,
  CONTROL_PLANE_NAME,
  CONTROL_PLANE_PORT,
  controlPlaneManifests,
  DEFAULT_STATE_SIZE,
} from '../runtimes/kubernetes/control-plane-manifests.js';
import { kubernetesPlacement } from '../runtimes/kubernetes/host.js';
import { hostPlacement } from '../runtimes/host-placement.js';
import { namespaceManifest } from '../runtimes/kubernetes/manifests.js';
import { podImageOf, serviceObjects } from '../runtimes/kubernetes/service-objects.js';
import { kubernetesSettings } from '../runtimes/kubernetes/settings.js';
import type { Placement, Runtime } from '../runtimes/types.js';
import { parseLabSpec } from '../spec/parse.js';
import type { LabSpec } from '../spec/types.js';
import { newLabState } from './bring-up.js';
import { startRequestOf } from './start-service.js';
import type { LabState } from './state.js';

/** Stands for a value the lab learns at bring-up. */
export const atBringUp = (what: string) => `<${what}: known at bring-up>`;

/** Every value any service could ask of another, as its placeholder. */
const placeholders = (service: string): Record<string, string> =>
  new Proxy({}, { get: (_target, key) => atBringUp(`${String(key)} of ${service}`) });

const unavailableHere = (what: string) => () => {
  throw new Error(`rendering a lab's manifests needs no ${what}`);
};

/** The lab as its kinds' launches see it, before anything runs. */
class RenderAccess implements LabAccess {
  readonly host: Placement;
  readonly credentials = {
    set: unavailableHere('credentials set'),
    get: (service: string) => placeholders(service),
    require: (service: string, key: string) => atBringUp(`${key} of ${service}`),
  };

  constructor(readonly lab: LabState) {
    this.host = hostPlacement(lab);
  }

  placementFor(service: string): Placement {
    return kubernetesPlacement(this.lab, service);
  }

  clientEnvOf(name: string, placement: Placement): Record<string, string> {
    const clientEnv = kindDefinition(this.lab.services[name].kind).clientEnv;
    if (!clientEnv) throw new Error(`"${name}" is not a Lightning node a lab service can use`);
    return clientEnv(this, name, placement);
  }

  get runtime(): Runtime {
    return unavailableHere('runtime')();
  }
  get chain(): never {
    return unavailableHere('chain node')();
  }
  get chainJournal(): never {
    return unavailableHere('chain journal')();
  }
  node = unavailableHere('node');
  mine = unavailableHere('mining');
}

/** The lab's objects in the order they are applied: its namespace, the claims, the Services, the pods. */
export function kubernetesObjects(spec: LabSpec, specText: string): KubernetesObject[] {
  const settings = kubernetesSettings(spec);
  const lab = newLabState(spec, specText, '');
  lab.assets = Object.fromEntries(
    spec.assets.map((asset) => [asset.ticker, atBringUp(`the asset id of ${asset.ticker}`)]),
  );
  // as if each service's ports were forwarded on the same numbers here (lab services name theirs)
  for (const service of Object.values(lab.services)) service.hostPorts = { ...service.containerPorts };
  const access = new RenderAccess(lab);
  const made = Object.values(lab.services).map((service) => serviceObjects(startRequestOf(access, service), settings));
  return [
    namespaceManifest({ lab: lab.name, namespace: settings.namespace }),
    ...made.flatMap((objects) => (objects.claim ? [objects.claim] : [])),
    ...made.map((objects) => objects.service),
    ...made.map((objects) => objects.pod),
  ];
}

/** The objects as one YAML stream, for `kubectl apply -f -`, after `header`'s lines as comments. */
function yamlStream(header: string[], objects: KubernetesObject[]): string {
  return `${header.map((line) => `# ${line}\n`).join('')}${objects
    // YAML 1.1, as kubectl reads it: "no", "on", "yes" stay strings (redis-server's --protected-mode no);
    // an object used twice (a selector's labels) written out each time, as people write manifests
    .map((object) => `---\n${stringify(object, { lineWidth: 0, version: '1.1', aliasDuplicateObjects: false })}`)
    .join('')}`;
}

export function renderKubernetes(spec: LabSpec, specText: string): string {
  return yamlStream(
    [
      `lab ${spec.name}: made by \`reglab render --kubernetes\` from the code the kubernetes runtime runs.`,
      "<...: known at bring-up> marks what the lab learns as it comes up (hex-encoded in lnd's",
      '--btcd.rawrpccert); `reglab up` with runtime: kubernetes makes these objects with the real values.',
    ],
    kubernetesObjects(spec, specText),
  );
}

export interface ControlPlaneOptions {
  /** Also open the control plane's Service on this port of every node. */
  nodePort?: number;
  /** The size of its state's claim (labs, snapshots, the queues). */
  stateSize?: string;
  /** Its token; a new one by default. */
  token?: string;
}

/**
 * lab.yaml as the control plane in the cluster reads it: on the kubernetes runtime, without the
 * kubeconfig and context that name how this machine reaches the cluster (in its pod, the control
 * plane uses its service account). Comments and the rest are kept.
 */
export function inClusterLabYaml(specText: string): string {
  const document = parseDocument(specText);
  document.set('runtime', 'kubernetes');
  const block = document.get('kubernetes');
  if (isMap(block)) {
    block.delete('kubeconfig');
    block.delete('context');
    if (block.items.length === 0) document.delete('kubernetes');
  }
  return document.toString();
}

/**
 * The lab's control plane as objects of its namespace (runtimes/kubernetes/control-plane-manifests.ts),
 * for the cluster to run it: it then brings the lab up itself, with the same runtime code, from
 * inside. The lab's own objects are not among them: the control plane makes those.
 */
export function controlPlaneObjects(
  specText: string,
  file: string,
  options: ControlPlaneOptions = {},
): KubernetesObject[] {
  const labYaml = inClusterLabYaml(specText);
  const spec = parseLabSpec(labYaml, file);
  // as in its pod: no kubeconfig, a service account
  const settings = kubernetesSettings(spec, { KUBERNETES_SERVICE_HOST: 'in-cluster' });
  if (newLabState(spec, labYaml, '').services[CONTROL_PLANE_NAME])
    throw invalid(
      'NAME_TAKEN',
      `lab ${spec.name} has a service named ${CONTROL_PLANE_NAME}, the name of its control plane's objects in namespace ${settings.namespace}: rename it`,
    );
  return controlPlaneManifests({
    lab: spec.name,
    namespace: settings.namespace,
    labYaml,
    token: options.token ?? randomBytes(18).toString('base64url'),
    access: settings.access,
    images: {
      controlPlane: podImageOf('control-plane', CONTROL_PLANE_IMAGES['control-plane'], settings),
      queues: podImageOf('queues', CONTROL_PLANE_IMAGES.queues, settings),
    },
    storage: { size: options.stateSize ?? DEFAULT_STATE_SIZE, storageClass: settings.storageClass },
    ...(options.nodePort === undefined ? {} : { nodePort: options.nodePort }),
  });
}

export function renderControlPlane(specText: string, file: string, options: ControlPlaneOptions = {}): string {
  const objects = controlPlaneObjects(specText, file, options);
  const namespace = objects[0].metadata!.name!;
  return yamlStream(
    [
      `the control plane of a lab, inside the cluster: made by \`reglab render --kubernetes --control-plane\`.`,
      `Once applied, it brings the lab up in namespace ${namespace} (its pods, Services and claims are its own):`,
      `  kubectl -n ${namespace} rollout status deployment/${CONTROL_PLANE_NAME}`,
      `  kubectl -n ${namespace} port-forward service/${CONTROL_PLANE_NAME} ${CONTROL_PLANE_PORT}   # the dashboard and API`,
      `  kubectl -n ${namespace} get secret ${CONTROL_PLANE_NAME} -o jsonpath='{.data.token}' | base64 -d   # its token`,
      'The token is made anew at each render. `reglab down` (through the API) takes the lab down;',
      '`kubectl delete -f` of these objects takes the rest, the namespace included.',
    ],
    objects,
  );
}
