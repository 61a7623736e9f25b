import type Docker from 'dockerode';
import { planLab } from '../lab/plan.js';
import { imageRecipesFor } from '../nodes/registry.js';
import type { LabSpec } from '../spec/types.js';
import { buildImages, type BuildImagesResult } from './build.js';
import type { ImageFlavour } from './types.js';

/** `reglab images build [--upstream]`: the images of every service the lab's plan runs. */
export function buildLabImages(
  docker: Docker,
  spec: LabSpec,
  options: { flavour?: ImageFlavour; force?: boolean; onProgress?: (line: string) => void } = {},
): Promise<BuildImagesResult> {
  return buildImages({
    docker,
    images: imageRecipesFor(
      planLab(spec).map((service) => service.kind),
      options.flavour ?? 'local',
    ),
    ...options,
  });
}
