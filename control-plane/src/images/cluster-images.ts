// A lab's images taken to a cluster, which has no access to this machine's container engine: loaded
// into a node's containerd directly (a cluster without a registry: the test cluster), or pushed to a
// registry its nodes pull from (a managed cluster). Both start from the images `reglab images build`
// made in the engine (Podman), under the names the kubernetes runtime's pods use.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { clusterImageRef } from '../runtimes/kubernetes/settings.js';
import { reglabCacheDir } from './cache.js';

/** What was loaded where: each image's id in the engine when it was loaded into a containerd, and the digest containerd gave it. */
const LOADED_RECORD = () => join(reglabCacheDir(), 'loaded-images.json');
type LoadedRecord = Record<string, { imageId: string; digest: string }>;

export interface ImageCopyResult {
  ref: string;
  action: 'loaded' | 'pushed' | 'up-to-date';
}

/** `ctr` with the containerd at `address`, in Kubernetes' namespace of images. */
function ctr(address: string, args: string[], input?: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('ctr', ['--address', address, '--namespace', 'k8s.io', ...args], {
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('error', (error) =>
      reject(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error("ctr (containerd's client) is not installed here: `apt-get install containerd` brings it")
          : error,
      ),
    );
    if (input) {
      input.once('error', (error) => child.kill() && reject(error));
      // ctr that fails before it has read the archive closes its input: its exit status says why
      child.stdin!.on('error', () => undefined);
      input.pipe(child.stdin!);
    }
    child.once('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`ctr ${args[0]} ${args[1] ?? ''} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}

/** The digest containerd lists for `ref`, or undefined when it has no image of that name. */
async function containerdDigest(address: string, ref: string): Promise<string | undefined> {
  const listing = await ctr(address, ['images', 'ls', `name==${ref}`]);
  const line = listing.split('\n').find((row) => row.startsWith(`${ref} `));
  return line?.split(/\s+/).find((field) => field.startsWith('sha256:'));
}

function readRecord(): LoadedRecord {
  try {
    return JSON.parse(readFileSync(LOADED_RECORD(), 'utf8')) as LoadedRecord;
  } catch {
    return {};
  }
}

/**
 * Loads each image (`refs`, as the engine names them) into the containerd at `address` (its socket),
 * where the kubelet finds it for a pod with imagePullPolicy Never: the engine's image archive piped
 * into `ctr images import`. An image loaded before, unchanged in the engine and still in containerd
 * with the digest it was given, is skipped.
 */
export async function loadIntoContainerd(
  docker: Docker,
  address: string,
  refs: string[],
  onProgress: (line: string) => void = () => undefined,
): Promise<ImageCopyResult[]> {
  if (!existsSync(address.replace(/^unix:\/\//, '')))
    throw new Error(
      `no containerd socket at ${address}: give the socket of the node's containerd (the test cluster's: see docs/kubernetes-runtime.md)`,
    );
  const record = readRecord();
  const results: ImageCopyResult[] = [];
  for (const ref of refs) {
    const { Id } = await docker.getImage(ref).inspect();
    const key = `${address}\n${ref}`;
    const known = record[key];
    if (known?.imageId === Id && known.digest === (await containerdDigest(address, ref))) {
      results.push({ ref, action: 'up-to-date' });
      continue;
    }
    onProgress(`loading ${ref} into the containerd at ${address}`);
    await ctr(address, ['images', 'import', '-'], await docker.getImage(ref).get());
    const digest = await containerdDigest(address, ref);
    if (!digest) throw new Error(`containerd at ${address} does not list ${ref} after importing it`);
    record[key] = { imageId: Id, digest };
    mkdirSync(dirname(LOADED_RECORD()), { recursive: true });
    writeFileSync(LOADED_RECORD(), JSON.stringify(record, null, 2));
    results.push({ ref, action: 'loaded' });
  }
  return results;
}

/**
 * Pushes each image to `registry` under the name the kubernetes runtime gives it there
 * (localhost/reglab-lnd:local -> REGISTRY/reglab-lnd:local), with the engine's credentials for
 * that registry when it has some (`podman login`).
 */
export async function pushToRegistry(
  docker: Docker,
  registry: string,
  refs: string[],
  onProgress: (line: string) => void = () => undefined,
): Promise<ImageCopyResult[]> {
  const results: ImageCopyResult[] = [];
  for (const ref of refs) {
    const target = clusterImageRef(ref, registry);
    const colon = target.lastIndexOf(':');
    const [repo, tag] =
      colon > target.lastIndexOf('/') ? [target.slice(0, colon), target.slice(colon + 1)] : [target, 'latest'];
    await docker.getImage(ref).tag({ repo, tag });
    onProgress(`pushing ${target}`);
    const stream = await docker.getImage(target).push({ tag });
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (error: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => {
          const failed = error?.message ?? output.find((entry) => entry.error)?.error;
          if (failed) reject(new Error(`pushing ${target} failed: ${failed}`));
          else resolve();
        },
      );
    });
    results.push({ ref: target, action: 'pushed' });
  }
  return results;
}
