// The shapes of the image catalog: what a recipe is, its id and flavour, the parts of its build context.

/**
 * local: built on this machine from the Debian base and host-built binaries (works offline).
 * upstream: third-party nodes built from their releases or sources (needs the internet).
 */
export type ImageFlavour = 'local' | 'upstream';

/** A recipe's id, its key in the catalog (catalog.ts): the kind's name for a kind's own image. */
export type ImageId = string;

/** Files from outside the recipe folder that go into the build context, as `tar -C dir entries`. */
export interface ContextPart {
  dir: string;
  entries: string[];
  /** Stands for the content in the pin when hashing it all would be slow (node_modules). */
  fingerprint?: string;
  /** Names the entries (files or folders) take in the context, when they differ from the names on disk. */
  rename?: Record<string, string>;
  /** Paths under the entries left out of the context, as `tar -C dir` names them. */
  exclude?: string[];
}

export interface ImageRecipe {
  id: ImageId;
  ref: string;
  /** Folder holding the Containerfile, relative to the project's images/ folder. */
  folder?: string;
  buildArgs: Record<string, string>;
  /** Recipes whose images this one is built FROM. */
  from: ImageId[];
  /** False where the build needs registries or GitHub that offline machines cannot reach. */
  offline: boolean;
  /** Its Containerfile's ENTRYPOINT: a cluster runs it under the runner without asking the image. */
  entrypoint?: string[];
  /** Its Containerfile's USER, when not root: a cluster hands the data volume to that user first. */
  user?: string;
  /** Why the image cannot be built on this machine at all, where it cannot: what a user is told when it is missing. */
  unavailable?: string;
  /** Extra context, resolved only when the image is built (it may need dist/ or binaries). */
  parts?: (onProgress: (line: string) => void) => ContextPart[] | Promise<ContextPart[]>;
}
