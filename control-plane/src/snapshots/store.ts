// The snapshots of one state folder: <home>/snapshots/<name>/ holds snapshot.json (the manifest)
// and each service's data. A folder is self-contained, so it can be copied to another machine or
// kept in a CI cache. It holds the lab's secrets: folders are 0700, the manifest 0600.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { conflict, invalid, notFound } from '../../../lib/errors.js';
import type { SnapshotManifest } from './manifest.js';

export const SNAPSHOT_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
const MANIFEST = 'snapshot.json';
/** Prefix of a snapshot being written: renamed to its name only once complete. */
const PARTIAL = '.partial-';

export class SnapshotStore {
  readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, 'snapshots');
  }

  private folder(name: string): string {
    if (!new RegExp(SNAPSHOT_NAME_PATTERN).test(name)) {
      throw invalid(
        'INVALID_SNAPSHOT_NAME',
        `"${name}" is not a snapshot name: use lowercase letters, digits, ".", "_" and "-" (at most 63, starting with a letter or digit)`,
      );
    }
    return join(this.dir, name);
  }

  /** The manifest of snapshot `name`, or 404 NO_SUCH_SNAPSHOT listing the snapshots there are. */
  read(name: string): SnapshotManifest & { dir: string } {
    const dir = this.folder(name);
    const file = join(dir, MANIFEST);
    if (!existsSync(file))
      throw notFound(
        `no snapshot named "${name}" (snapshots: ${this.names().join(', ') || 'none'}); save one with \`reglab snapshot save ${name}\``,
        'NO_SUCH_SNAPSHOT',
      );
    return { ...(JSON.parse(readFileSync(file, 'utf8')) as SnapshotManifest), dir };
  }

  list(): SnapshotManifest[] {
    return this.names().map((name) => this.read(name));
  }

  private names(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((entry) => !entry.startsWith('.') && existsSync(join(this.dir, entry, MANIFEST)))
      .sort();
  }

  /** Refuses a name already taken, before any service is stopped. */
  assertFree(name: string): void {
    if (existsSync(this.folder(name)))
      throw conflict(
        'SNAPSHOT_EXISTS',
        `a snapshot named "${name}" exists already: remove it first with \`reglab snapshot rm ${name}\`, or choose another name`,
      );
  }

  /**
   * Writes a snapshot: `fill` copies the data into a folder that becomes the snapshot, with its
   * manifest, only once complete; a failed or interrupted save leaves no snapshot behind.
   */
  async create(name: string, fill: (dir: string) => Promise<SnapshotManifest>): Promise<SnapshotManifest> {
    this.assertFree(name);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const partial = join(this.dir, `${PARTIAL}${name}-${randomBytes(4).toString('hex')}`);
    mkdirSync(partial, { mode: 0o700 });
    try {
      const manifest = await fill(partial);
      writeFileSync(join(partial, MANIFEST), JSON.stringify(manifest, null, 2), { mode: 0o600 });
      this.assertFree(name);
      renameSync(partial, this.folder(name));
      return manifest;
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    const { dir } = this.read(name);
    // renamed first, so a snapshot is either there whole or gone
    const doomed = join(this.dir, `${PARTIAL}removed-${name}-${randomBytes(4).toString('hex')}`);
    renameSync(dir, doomed);
    await rm(doomed, { recursive: true, force: true });
  }
}
