import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { reglabCacheDir } from './cache.js';
import { DEBIAN_BASE_REF, DEBIAN_IMAGE } from './recipes.js';
import { contextTar } from './context.js';
import { IMAGE_LABEL, PIN_LABEL } from './pin.js';
import { followBuild } from './progress.js';

const MIRROR = process.env.REGLAB_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';

/** Where the debootstrapped tree is kept, so re-importing the base never re-runs debootstrap. */
export function rootfsDir(): string {
  const { SUITE, VARIANT } = DEBIAN_IMAGE.buildArgs;
  return join(reglabCacheDir(), 'rootfs', `${SUITE}-${VARIANT}`);
}

/**
 * The lab's Debian base, localhost/reglab-debian:bookworm: `debootstrap --variant=minbase` (once, as
 * root) and an import through the Engine API, labelled with its pin.
 */
export async function buildDebianBase(docker: Docker, pin: string, onProgress: (line: string) => void): Promise<void> {
  const dir = rootfsDir();
  if (!existsSync(`${dir}.complete`)) await debootstrap(dir, onProgress);
  onProgress(`importing ${dir} as ${DEBIAN_BASE_REF}`);
  const [repo, tag] = splitRef(DEBIAN_BASE_REF);
  const stream = await docker.importImage(contextTar([{ dir, entries: ['.'] }]), {
    changes: [`LABEL ${PIN_LABEL}=${pin}`, `LABEL ${IMAGE_LABEL}=debian`, 'CMD ["/bin/bash"]'],
  } as object);
  const events = await followBuild(docker, stream, onProgress);
  const id = events
    .map((event) => event.id ?? event.status)
    .find((value): value is string => typeof value === 'string' && value.startsWith('sha256:'));
  if (!id) throw new Error(`importing the Debian base gave no image id: ${JSON.stringify(events).slice(0, 500)}`);
  // Podman's import ignores the tag parameter: tag the imported image explicitly.
  await docker.getImage(id).tag({ repo, tag });
}

async function debootstrap(dir: string, onProgress: (line: string) => void): Promise<void> {
  if (process.getuid?.() !== 0)
    throw new Error(
      'building the Debian base needs root (debootstrap); run as root or build images on a machine that can',
    );
  const { SUITE, VARIANT } = DEBIAN_IMAGE.buildArgs;
  const work = `${dir}.partial`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  onProgress(`debootstrap --variant=${VARIANT} ${SUITE} ${work} ${MIRROR} (about a minute)`);
  await run('debootstrap', [`--variant=${VARIANT}`, SUITE, work, MIRROR], onProgress);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  writeFileSync(`${dir}.complete`, `${new Date().toISOString()}\n`);
}

function run(command: string, args: string[], onProgress: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        onProgress(line);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (error) =>
      reject(new Error(`${command} could not start (${error.message}): install it with scripts/podman-setup.sh`)),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} failed (exit ${code}):\n${tail.join('\n')}`)),
    );
  });
}

export function splitRef(ref: string): [string, string] {
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? [ref.slice(0, colon), ref.slice(colon + 1)] : [ref, 'latest'];
}
