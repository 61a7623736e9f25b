import { join } from 'node:path';
import type Docker from 'dockerode';
import { projectRoot } from '../../../lib/project-root.js';
import { withBuildLock } from './build-lock.js';
import { RECIPES } from './catalog.js';
import type { ContextPart, ImageFlavour, ImageId, ImageRecipe } from './types.js';
import { contextTar } from './context.js';
import { buildDebianBase } from './debian-base.js';
import { IMAGE_LABEL, PIN_LABEL, recipePin } from './pin.js';
import { followBuild } from './progress.js';

/** An image reference for each kind of service, by kind name. */
export type ImageMap = Record<string, string>;

export interface BuildImagesOptions {
  docker: Docker;
  /** The recipe that runs each kind of service the lab runs (the node-kind registry says which). */
  images: Record<string, ImageId>;
  /** local builds what it can offline; upstream also builds recipes that need the internet. */
  flavour?: ImageFlavour;
  /** Images the lab names itself (lab.yaml): used as they are, never built. */
  overrides?: ImageMap;
  onProgress?: (line: string) => void;
  /** Also report each image found up to date (or present), not only the work done: true unless said. */
  reportUpToDate?: boolean;
  /** Rebuild even when an image with the same pin exists. */
  force?: boolean;
  /** The recipes by id: RECIPES unless given (a test gives its images names of their own). */
  catalog?: Record<ImageId, ImageRecipe>;
}

export interface BuiltImage {
  id: ImageId;
  ref: string;
  pin: string;
  action: 'built' | 'up-to-date';
}

export interface BuildImagesResult {
  /** The image for each kind, to give to createDockerRuntime({ images }). */
  images: ImageMap;
  built: BuiltImage[];
}

/**
 * Builds the images a lab needs, base images first, skipping every image that already carries
 * the pin of what it would be built from.
 */
export async function buildImages(options: BuildImagesOptions): Promise<BuildImagesResult> {
  const flavour = options.flavour ?? 'local';
  const onProgress = options.onProgress ?? (() => undefined);
  const catalog = options.catalog ?? RECIPES;
  const images: ImageMap = {};
  const wanted = new Set<ImageId>();
  for (const [kind, id] of Object.entries(options.images)) {
    const override = options.overrides?.[kind];
    if (override !== undefined) {
      images[kind] = override;
      continue;
    }
    images[kind] = catalog[id].ref;
    wanted.add(id);
  }
  const builder = new Builder(
    catalog,
    options.docker,
    onProgress,
    options.force ?? false,
    flavour === 'local',
    options.reportUpToDate ?? true,
  );
  await withBuildLock(onProgress, async () => {
    for (const id of wanted) await builder.ensure(catalog[id]);
  });
  return { images, built: builder.done };
}

class Builder {
  readonly done: BuiltImage[] = [];
  private readonly pins = new Map<ImageId, string>();
  private readonly imagesDir = join(projectRoot(), 'images');

  constructor(
    private readonly catalog: Record<ImageId, ImageRecipe>,
    private readonly docker: Docker,
    private readonly onProgress: (line: string) => void,
    private readonly force: boolean,
    /** Local flavour: images that need the internet are used when present, never built. */
    private readonly offlineOnly: boolean,
    private readonly reportUpToDate: boolean,
  ) {}

  async ensure(recipe: ImageRecipe): Promise<string> {
    const known = this.pins.get(recipe.id);
    if (known !== undefined) return known;
    const basePins: string[] = [];
    for (const base of recipe.from) basePins.push(await this.ensure(this.catalog[base]));
    if (!recipe.offline && this.offlineOnly) return this.requirePresent(recipe);
    const parts = (await recipe.parts?.(this.onProgress)) ?? [];
    const pin = recipePin(recipe, this.imagesDir, parts, basePins);
    const existing = await this.inspect(recipe.ref);
    const current = existing?.pin;
    if (current === pin && !this.force) {
      if (this.reportUpToDate) this.onProgress(`${recipe.ref} is up to date (pin ${pin.slice(0, 12)})`);
      this.done.push({ id: recipe.id, ref: recipe.ref, pin, action: 'up-to-date' });
    } else if (!this.force && (await this.takeBack(recipe, pin))) {
      this.onProgress(`${recipe.ref} is back to its build of pin ${pin.slice(0, 12)} (${keptRef(recipe.ref, pin)})`);
      this.done.push({ id: recipe.id, ref: recipe.ref, pin, action: 'up-to-date' });
    } else {
      this.onProgress(
        `building ${recipe.ref} (pin ${pin.slice(0, 12)}${current ? `, was ${current.slice(0, 12)}` : ''})`,
      );
      await this.build(recipe, parts, pin);
      await this.keep(recipe, pin);
      this.done.push({ id: recipe.id, ref: recipe.ref, pin, action: 'built' });
      // earlier builds of reglab images that nothing tags or runs any more
      await this.docker.pruneImages({ filters: { dangling: ['true'], label: [PIN_LABEL] } }).catch(() => undefined);
    }
    this.pins.set(recipe.id, pin);
    return pin;
  }

  /** Tags the image kept for `pin` (an earlier build of the same inputs) as the recipe's image again; false when there is none. */
  private async takeBack(recipe: ImageRecipe, pin: string): Promise<boolean> {
    const kept = keptRef(recipe.ref, pin);
    if ((await this.inspect(kept))?.pin !== pin) return false;
    await this.docker.getImage(kept).tag(repoAndTag(recipe.ref));
    return true;
  }

  /**
   * Keeps the image just built under its pin too, so that a checkout whose sources come back to
   * these (another branch, a worktree beside this one) takes it back rather than building it again;
   * the oldest kept builds of the recipe beyond KEPT_BUILDS lose that tag (an image no tag names any
   * more is then removed, unless a container uses it).
   */
  private async keep(recipe: ImageRecipe, pin: string): Promise<void> {
    await this.docker.getImage(recipe.ref).tag(repoAndTag(keptRef(recipe.ref, pin)));
    const { repo } = repoAndTag(recipe.ref);
    const builds = await this.docker.listImages({ filters: { label: [`${IMAGE_LABEL}=${recipe.id}`] } });
    const newest = keptRef(recipe.ref, pin);
    const older = builds
      .sort((a, b) => b.Created - a.Created)
      .flatMap((image) => (image.RepoTags ?? []).filter((tag) => tag.startsWith(`${repo}:${KEPT_TAG_PREFIX}`)))
      .filter((tag) => tag !== newest);
    for (const tag of older.slice(KEPT_BUILDS - 1))
      await this.docker
        .getImage(tag)
        .remove()
        .catch(() => undefined);
  }

  private async requirePresent(recipe: ImageRecipe): Promise<string> {
    const image = await this.docker
      .getImage(recipe.ref)
      .inspect()
      .catch((error: unknown) => {
        if ((error as { statusCode?: number }).statusCode === 404) throw new Error(missingUpstream(recipe));
        throw error;
      });
    const pin = image.Config?.Labels?.[PIN_LABEL] ?? `unpinned ${image.Id}`;
    if (this.reportUpToDate) this.onProgress(`${recipe.ref} is present (built elsewhere: ${pin.slice(0, 20)})`);
    this.done.push({ id: recipe.id, ref: recipe.ref, pin, action: 'up-to-date' });
    this.pins.set(recipe.id, pin);
    return pin;
  }

  private async inspect(ref: string): Promise<{ id: string; pin?: string } | undefined> {
    try {
      const info = await this.docker.getImage(ref).inspect();
      return { id: info.Id, pin: info.Config?.Labels?.[PIN_LABEL] };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return undefined;
      throw error;
    }
  }

  private async build(recipe: ImageRecipe, parts: ContextPart[], pin: string): Promise<void> {
    if (recipe.id === 'debian') return buildDebianBase(this.docker, pin, this.onProgress);
    if (!recipe.folder) throw new Error(`image ${recipe.id} has no Containerfile folder`);
    const context = contextTar([{ dir: join(this.imagesDir, recipe.folder), entries: ['.'] }, ...parts]);
    try {
      const stream = await this.docker.buildImage(context, {
        t: recipe.ref,
        dockerfile: 'Containerfile',
        buildargs: recipe.buildArgs,
        labels: { [PIN_LABEL]: pin, [IMAGE_LABEL]: recipe.id },
        rm: true,
      });
      await followBuild(this.docker, stream, this.onProgress);
    } catch (error) {
      throw new Error(buildFailure(recipe, error));
    }
    const built = (await this.inspect(recipe.ref))?.pin;
    if (built !== pin)
      throw new Error(
        `building ${recipe.ref} finished but the image does not carry pin ${pin} (found ${built ?? 'no image'})`,
      );
  }
}

/** How many builds of each image are kept under their pins (keptRef), the newest first. */
const KEPT_BUILDS = 3;
const KEPT_TAG_PREFIX = 'pin-';

/** The name a build of `ref` is kept under beside it: its repository, tagged with its pin. */
export const keptRef = (ref: string, pin: string) => `${repoAndTag(ref).repo}:${KEPT_TAG_PREFIX}${pin}`;

function repoAndTag(ref: string): { repo: string; tag: string } {
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/')
    ? { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) }
    : { repo: ref, tag: 'latest' };
}

/** What to tell a user whose lab needs image `ref` that is not in the engine. */
export function missingImageMessage(ref: string): string {
  const recipe = Object.values(RECIPES).find((candidate) => candidate.ref === ref);
  if (recipe === undefined)
    return `image ${ref} is not in the container engine: build or load it, or name another image in lab.yaml`;
  if (!recipe.offline) return missingUpstream(recipe);
  return `image ${ref} is not built yet: run \`reglab images build\` (it builds what the lab needs, once)`;
}

function missingUpstream(recipe: ImageRecipe): string {
  const why = recipe.unavailable
    ? `${recipe.unavailable} `
    : `it is built from sources on the internet (images/${recipe.folder}/Containerfile). `;
  return (
    `the lab needs image ${recipe.ref} and it is not here: ${why}` +
    `Build it where the internet is reachable (\`reglab images build --upstream\` or \`podman build -t ${recipe.ref} images/${recipe.folder}\`), ` +
    'bring it here with `podman save` / `podman load`, or name an existing image for the service in lab.yaml.'
  );
}

function buildFailure(recipe: ImageRecipe, error: unknown): string {
  const reason = (error instanceof Error ? error.message : String(error)).trim();
  const where = `images/${recipe.folder}/Containerfile`;
  if (recipe.offline) return `building ${recipe.ref} from ${where} failed: ${reason}`;
  return (
    `building ${recipe.ref} from ${where} failed: ${reason}. ` +
    'This upstream image downloads its base image and sources from the internet (Docker Hub, GitHub, ' +
    'release sites). On a machine without that access, build it elsewhere, bring it here with ' +
    `\`podman save\` / \`podman load\`, tag it ${recipe.ref}, or name an image for the service in lab.yaml.`
  );
}
