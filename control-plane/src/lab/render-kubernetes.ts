// `reglab render --kubernetes`: a lab's Kubernetes objects, made by the runtime's own code from the
// start requests a bring-up makes (lab/start-service.ts, runtimes/kubernetes/service-objects.ts),
// for kubectl, GitOps and Helm users. What a lab only learns while it comes up (btcd's certificate,
// which lnd is given; lnd's macaroon and certificate, which the wallet server and the faucet are
// given; the ids of assets it issues) stands as a placeholder naming it. The lab's secrets (RPC
// password, keys) are made anew at each render, as at each bring-up.
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { LabAccess } from '../nodes/types.js';
import { kindDefinition } from '../nodes/registry.js';
import { kubernetesPlacement } from '../runtimes/kubernetes/host.js';
import { hostPlacement } from '../runtimes/host-placement.js';
import { namespaceManifest } from '../runtimes/kubernetes/manifests.js';
import { serviceObjects } from '../runtimes/kubernetes/service-objects.js';
import { kubernetesSettings } from '../runtimes/kubernetes/settings.js';
import type { Placement, Runtime } from '../runtimes/types.js';
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

/** The objects as one YAML stream, for `kubectl apply -f -`. */
export function renderKubernetes(spec: LabSpec, specText: string): string {
  const header = [
    `# lab ${spec.name}: made by \`reglab render --kubernetes\` from the code the kubernetes runtime runs.`,
    "# <...: known at bring-up> marks what the lab learns as it comes up (hex-encoded in lnd's",
    '# --btcd.rawrpccert); `reglab up` with runtime: kubernetes makes these objects with the real values.',
  ].join('\n');
  return `${header}\n${kubernetesObjects(spec, specText)
    // YAML 1.1, as kubectl reads it: "no", "on", "yes" stay strings (redis-server's --protected-mode no)
    .map((object) => `---\n${stringify(object, { lineWidth: 0, version: '1.1' })}`)
    .join('')}`;
}
