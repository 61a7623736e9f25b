import { createHash, type Hash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileContent, saveFileDigests } from './file-digests.js';
import type { ContextPart, ImageRecipe } from './types.js';

/** Label holding the pin an image was built from; a rebuild happens only when it differs. */
export const PIN_LABEL = 'reglab.pin';
export const IMAGE_LABEL = 'reglab.image';

/**
 * What an image is built from, hashed: its Containerfile folder, build arguments, extra context
 * and the pins of the images it is built FROM.
 */
export function recipePin(recipe: ImageRecipe, imagesDir: string, parts: ContextPart[], basePins: string[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ id: recipe.id, ref: recipe.ref, args: recipe.buildArgs, basePins }));
  if (recipe.folder) hashTree(hash, join(imagesDir, recipe.folder), recipe.folder);
  for (const part of parts) {
    if (part.fingerprint !== undefined) hash.update(`fingerprint ${part.fingerprint}\n`);
    else for (const entry of part.entries) hashTree(hash, join(part.dir, entry), part.rename?.[entry] ?? entry);
  }
  saveFileDigests();
  return hash.digest('hex').slice(0, 32);
}

export function hashTree(hash: Hash, path: string, name: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    for (const child of readdirSync(path).sort()) hashTree(hash, join(path, child), `${name}/${child}`);
    return;
  }
  hash.update(`file ${name} ${stat.mode & 0o111 ? 'x' : '-'} ${stat.size}\n`);
  hash.update(fileContent(path, stat));
}
