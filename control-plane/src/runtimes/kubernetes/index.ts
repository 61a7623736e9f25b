export { kubernetesPlacement, kubernetesRuntimeOptions } from './host.js';
export { KubernetesRuntime, type KubernetesRuntimeOptions } from './runtime.js';
export { kubernetesSettings, clusterImageRef, type KubernetesSettings } from './settings.js';
export { LABELS, defaultNamespace } from './names.js';
