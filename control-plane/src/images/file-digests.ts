import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, type Stats, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { reglabCacheDir } from './cache.js';

/** Files from this size on (the lnd and Node binaries) have their digest remembered between image checks. */
const REMEMBERED_FROM_BYTES = 4 << 20;

/**
 * A file changed this recently may still be written to within the same time stamp: its digest is
 * computed but not remembered (git's "racily clean" entries).
 */
const SETTLED_AFTER_MS = 2_000;

interface Remembered {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  digest: string;
}

const cacheFile = () => join(reglabCacheDir(), 'file-digests.json');

/** The digests read from a cache's file, and whether some were learnt since. */
interface DigestFile {
  file: string;
  digests: Map<string, Remembered>;
  changed: boolean;
}

let remembered: DigestFile | undefined;

/** The cache's digests, read once (again if REGLAB_CACHE_DIR has since named another cache). */
function load(): DigestFile {
  const file = cacheFile();
  if (remembered?.file === file) return remembered;
  let digests: Map<string, Remembered>;
  try {
    digests = new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Remembered>));
  } catch {
    digests = new Map();
  }
  remembered = { file, digests, changed: false };
  return remembered;
}

const sameFile = (entry: Remembered, stat: Stats) =>
  entry.size === stat.size &&
  entry.mtimeMs === stat.mtimeMs &&
  entry.ctimeMs === stat.ctimeMs &&
  entry.ino === stat.ino;

/**
 * What a file holds, for an image pin: its bytes when small, else the SHA-256 of its bytes,
 * remembered by the file's size, times and inode: every docker up checks the images, and hashing lnd's
 * and Node's binaries again each time was on its path although they change only when rebuilt.
 */
export function fileContent(path: string, stat: Stats, now = Date.now()): Buffer | string {
  if (stat.size < REMEMBERED_FROM_BYTES) return readFileSync(path);
  const cache = load();
  const known = cache.digests.get(path);
  if (known && sameFile(known, stat)) return `sha256 ${known.digest}`;
  const digest = createHash('sha256').update(readFileSync(path)).digest('hex');
  if (now - Math.max(stat.mtimeMs, stat.ctimeMs) > SETTLED_AFTER_MS) {
    cache.digests.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, digest });
    cache.changed = true;
  }
  return `sha256 ${digest}`;
}

/** Writes the digests learnt since the last call (atomically: another reglab may read the file meanwhile). */
export function saveFileDigests(): void {
  if (!remembered?.changed) return;
  const { file, digests } = remembered;
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify(Object.fromEntries(digests)));
  renameSync(temporary, file);
  remembered.changed = false;
}
