// The image catalog is made of the recipes no kind owns and each kind's own (KindDefinition.image):
// every image a kind runs, and every image a recipe is built FROM, is in it under its id.
import { describe, expect, it } from 'vitest';
import { RECIPES } from '../../control-plane/src/images/catalog.js';
import { allKinds } from '../../control-plane/src/nodes/registry.js';

describe('image catalog', () => {
  it("holds each kind's image and upstream image, under the recipe's id", () => {
    for (const kind of allKinds()) {
      for (const recipe of [kind.image, kind.upstreamImage].filter((image) => image !== undefined))
        expect(RECIPES[recipe.id]).toBe(recipe);
    }
  });

  it('holds every image a recipe is built FROM', () => {
    const bases = Object.values(RECIPES).flatMap((recipe) => recipe.from);
    expect(bases.filter((id) => RECIPES[id] === undefined)).toEqual([]);
  });

  it('names each recipe once: one recipe an id, one id a reference', () => {
    const recipes = [...Object.values(RECIPES), ...allKinds().flatMap((kind) => [kind.image, kind.upstreamImage])];
    const byId = new Map<string, unknown>();
    for (const recipe of recipes.filter((image) => image !== undefined)) {
      expect(byId.get(recipe.id) ?? recipe, `recipes with the id ${recipe.id}`).toBe(recipe);
      byId.set(recipe.id, recipe);
    }
    const refs = Object.values(RECIPES).map((recipe) => recipe.ref);
    expect(new Set(refs).size).toBe(refs.length);
  });
});
