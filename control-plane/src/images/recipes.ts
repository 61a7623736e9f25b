// How image recipes are made, and the recipes no kind owns: the Debian base the local images are
// built FROM, the services image every lab service runs, and upstream images of parts the lab does
// not launch. A kind's own recipes are in its folder (KindDefinition.image); catalog.ts collects all.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../lib/project-root.js';
import { nodeBinDir } from '../home.js';
import { servicesParts } from './services-build.js';
import type { ContextPart, ImageRecipe } from './types.js';

export const DEBIAN_BASE_REF = 'localhost/reglab-debian:bookworm';

/** The node binaries a local image copies in from ~/.cache/reglab/bin, each one said missing with how to build it. */
function nodeBinaries(names: string[], buildScript: string): () => ContextPart[] {
  return () => {
    const dir = nodeBinDir();
    for (const name of names) {
      if (!existsSync(join(dir, name))) {
        throw new Error(`${join(dir, name)} is missing: build it with \`bash ${buildScript}\``);
      }
    }
    return [{ dir, entries: names }];
  };
}

/**
 * An image built on this machine FROM the Debian base (works offline), in images/local/<id>; with
 * `binaries`, the host-built node binaries it runs (made by `buildScript`).
 */
export function localImage(
  id: string,
  options: {
    binaries?: string[];
    buildScript?: string;
    buildArgs?: Record<string, string>;
    entrypoint?: string[];
    user?: string;
  } = {},
): ImageRecipe {
  const { binaries, buildScript = 'scripts/build-nodes.sh' } = options;
  return {
    id,
    ref: `localhost/reglab-${id}:local`,
    folder: `local/${id}`,
    buildArgs: { BASE_IMAGE: DEBIAN_BASE_REF, ...options.buildArgs },
    from: ['debian'],
    offline: true,
    ...(binaries ? { parts: nodeBinaries(binaries, buildScript) } : {}),
    ...(options.entrypoint ? { entrypoint: options.entrypoint } : {}),
    ...(options.user ? { user: options.user } : {}),
  };
}

/** A third-party image built from its release or sources, in images/upstream/<folder> (needs the internet). */
export function upstreamImage(
  id: string,
  options: {
    folder: string;
    version: string;
    buildArgs: Record<string, string>;
    entrypoint: string[];
    unavailable?: string;
  },
): ImageRecipe {
  return {
    id,
    ref: `localhost/reglab-${options.folder}:${options.version}`,
    folder: `upstream/${options.folder}`,
    buildArgs: options.buildArgs,
    from: [],
    offline: false,
    entrypoint: options.entrypoint,
    ...(options.unavailable ? { unavailable: options.unavailable } : {}),
  };
}

export const DEBIAN_IMAGE: ImageRecipe = {
  id: 'debian',
  ref: DEBIAN_BASE_REF,
  buildArgs: { SUITE: 'bookworm', VARIANT: 'minbase' },
  from: [],
  offline: true,
};

/** The project's bundled programs on Node: every lab service (wallet server, faucet, indexer...). */
export const SERVICES_IMAGE: ImageRecipe = {
  ...localImage('services', { buildArgs: { NODE_VERSION: process.version }, entrypoint: ['/usr/local/bin/node'] }),
  parts: (onProgress) => servicesParts(projectRoot(), onProgress),
};

/** Upstream images of parts the lab does not launch itself (yet), for `reglab images build --upstream`. */
export const UNLAUNCHED_IMAGES: ImageRecipe[] = [
  upstreamImage('bitcoind', {
    folder: 'bitcoind',
    version: '29.1',
    buildArgs: { BITCOIN_VERSION: '29.1' },
    entrypoint: ['/usr/local/bin/bitcoind', '-printtoconsole'],
  }),
  upstreamImage('electrs', {
    folder: 'electrs',
    version: '0.11.1',
    buildArgs: { ELECTRS_VERSION: '0.11.1' },
    entrypoint: ['/usr/local/bin/electrs'],
  }),
  upstreamImage('rgb-proxy-server', {
    folder: 'rgb-proxy-server',
    version: '0.3.0',
    buildArgs: { RGB_PROXY_REF: '0.3.0' },
    entrypoint: ['tini', '--', 'node', './dist/server.js'],
  }),
];
