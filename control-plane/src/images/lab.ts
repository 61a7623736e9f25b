import type Docker from 'dockerode';
import { planLab } from '../lab/plan.js';
import { imageRecipesFor } from '../nodes/registry.js';
import type { LabSpec } from '../spec/types.js';
import { buildImages, type BuildImagesResult } from './build.js';
import type { ImageFlavour, ImageId } from './types.js';

/**
 * `reglab images build [--upstream]`: the images of every service the lab's plan runs, and those of
 * `extra` (by what runs them: the control plane's, for a cluster).
 */
export function buildLabImages(
  docker: Docker,
  spec: LabSpec,
  options: {
    flavour?: ImageFlavour;
    force?: boolean;
    onProgress?: (line: string) => void;
    extra?: Record<string, ImageId>;
  } = {},
): Promise<BuildImagesResult> {
  return buildImages({
    docker,
    ...options,
    images: {
      ...imageRecipesFor(
        planLab(spec).map((service) => service.kind),
        options.flavour ?? 'local',
      ),
      ...options.extra,
    },
  });
}
