// Every image recipe, by id: those no kind owns (recipes.ts) and each kind's own (its folder).
import { allKinds } from '../nodes/registry.js';
import { DEBIAN_IMAGE, SERVICES_IMAGE, UNLAUNCHED_IMAGES } from './recipes.js';
import type { ImageId, ImageRecipe } from './types.js';

export const RECIPES: Record<ImageId, ImageRecipe> = Object.fromEntries(
  [
    DEBIAN_IMAGE,
    SERVICES_IMAGE,
    ...UNLAUNCHED_IMAGES,
    ...allKinds().flatMap((kind) => [kind.image, ...(kind.upstreamImage ? [kind.upstreamImage] : [])]),
  ].map((recipe) => [recipe.id, recipe]),
);
