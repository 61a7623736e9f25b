export { dockerRuntimeOptions } from './host.js';
export { createDockerRuntime, DockerRuntime, type DockerRuntimeOptions, type LabContainer } from './runtime.js';
export { LABELS } from './container-spec.js';
export { dockerPlacement, containerName, networkName, volumeName } from './placement.js';
export { discoverEngine, type Engine } from './engine.js';
export {
  buildImages,
  missingImageMessage,
  type BuildImagesOptions,
  type BuildImagesResult,
  type ImageMap,
} from '../../images/build.js';
export { buildLabImages } from '../../images/lab.js';
