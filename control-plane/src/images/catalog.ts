import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { nodeBinDir } from '../home.js';
import { projectRoot } from '../../../lib/project-root.js';
import type { ContextPart, ImageId, ImageRecipe } from './types.js';
import { servicesParts } from './services-build.js';

export const DEBIAN_BASE_REF = 'localhost/reglab-debian:bookworm';

const localArgs = () => ({ BASE_IMAGE: DEBIAN_BASE_REF });

function nodeBinaries(names: string[], buildScript = 'scripts/build-nodes.sh'): () => ContextPart[] {
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

export const RECIPES: Record<ImageId, ImageRecipe> = {
  debian: {
    id: 'debian',
    ref: DEBIAN_BASE_REF,
    buildArgs: { SUITE: 'bookworm', VARIANT: 'minbase' },
    from: [],
    offline: true,
  },
  btcd: {
    id: 'btcd',
    ref: 'localhost/reglab-btcd:local',
    folder: 'local/btcd',
    buildArgs: localArgs(),
    from: ['debian'],
    offline: true,
    parts: nodeBinaries(['btcd', 'btcctl']),
    entrypoint: ['/usr/local/bin/btcd'],
  },
  lnd: {
    id: 'lnd',
    ref: 'localhost/reglab-lnd:local',
    folder: 'local/lnd',
    buildArgs: localArgs(),
    from: ['debian'],
    offline: true,
    parts: nodeBinaries(['lnd', 'lncli']),
    entrypoint: ['/usr/local/bin/lnd'],
  },
  ldk: {
    id: 'ldk',
    ref: 'localhost/reglab-ldk:local',
    folder: 'local/ldk',
    buildArgs: localArgs(),
    from: ['debian'],
    offline: true,
    parts: nodeBinaries(['reglab-ldk'], 'scripts/build-ldk.sh'),
    entrypoint: ['/usr/local/bin/reglab-ldk'],
  },
  services: {
    id: 'services',
    ref: 'localhost/reglab-services:local',
    folder: 'local/services',
    buildArgs: { ...localArgs(), NODE_VERSION: process.version },
    from: ['debian'],
    offline: true,
    parts: (onProgress) => servicesParts(projectRoot(), onProgress),
    entrypoint: ['/usr/local/bin/node'],
  },
  postgres: {
    id: 'postgres',
    ref: 'localhost/reglab-postgres:local',
    folder: 'local/postgres',
    buildArgs: { ...localArgs(), POSTGRES_MAJOR: '15' },
    from: ['debian'],
    offline: true,
    entrypoint: ['/usr/local/bin/reglab-postgres'],
    user: 'postgres',
  },
  redis: {
    id: 'redis',
    ref: 'localhost/reglab-redis:local',
    folder: 'local/redis',
    buildArgs: localArgs(),
    from: ['debian'],
    offline: true,
    entrypoint: ['/usr/bin/redis-server', '--protected-mode', 'no'],
    user: 'redis',
  },
  bitcoind: {
    id: 'bitcoind',
    ref: 'localhost/reglab-bitcoind:29.1',
    folder: 'upstream/bitcoind',
    buildArgs: { BITCOIN_VERSION: '29.1' },
    from: [],
    offline: false,
    entrypoint: ['/usr/local/bin/bitcoind', '-printtoconsole'],
  },
  electrs: {
    id: 'electrs',
    ref: 'localhost/reglab-electrs:0.11.1',
    folder: 'upstream/electrs',
    buildArgs: { ELECTRS_VERSION: '0.11.1' },
    from: [],
    offline: false,
    entrypoint: ['/usr/local/bin/electrs'],
  },
  'lnd-upstream': {
    id: 'lnd-upstream',
    ref: 'localhost/reglab-lnd:v0.20.1-beta',
    folder: 'upstream/lnd',
    buildArgs: { LND_VERSION: 'v0.20.1-beta' },
    from: [],
    offline: false,
    entrypoint: ['/usr/local/bin/lnd'],
  },
  rln: {
    id: 'rln',
    ref: 'localhost/reglab-rln:0c3bf104',
    folder: 'upstream/rln',
    buildArgs: { RLN_REF: '0c3bf1047ee01a8c8077508276fa2c4a63c87857' },
    from: [],
    offline: false,
    entrypoint: ['/usr/local/bin/rgb-lightning-node'],
  },
  'rgb-proxy-server': {
    id: 'rgb-proxy-server',
    ref: 'localhost/reglab-rgb-proxy-server:0.3.0',
    folder: 'upstream/rgb-proxy-server',
    buildArgs: { RGB_PROXY_REF: '0.3.0' },
    from: [],
    offline: false,
    entrypoint: ['tini', '--', 'node', './dist/server.js'],
  },
};
