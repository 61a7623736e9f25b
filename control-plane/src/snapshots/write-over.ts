// A snapshot's copy of a service's data is written over the data the service has, not into a folder
// emptied first: a file written over keeps its inode. Deleting the thousand files of PostgreSQL's
// data and creating them again seconds later is slow where ext4 runs without a journal (this
// machine's disk): the kernel then passes over every recently freed inode as it allocates one,
// so the restore cost several times the CPU of writing the files over (bench:snapshot).
// What the copy does not hold is removed first, and so is what it holds as another kind of entry: a
// symbolic link left where the copy has a file or a folder would be written through.
import { readdir, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import type { EntryKind } from './tar-entries.js';

const kindOfEntry = (entry: Dirent): EntryKind => {
  if (entry.isDirectory()) return 'folder';
  if (entry.isSymbolicLink()) return 'link';
  return entry.isFile() ? 'file' : 'other';
};

/** Every entry under `folder` (not the folder itself), by its path relative to it. */
export async function entriesUnder(
  folder: string,
  under = '',
  found = new Map<string, EntryKind>(),
): Promise<Map<string, EntryKind>> {
  for (const entry of await readdir(join(folder, under), { withFileTypes: true })) {
    const path = under ? `${under}/${entry.name}` : entry.name;
    const kind = kindOfEntry(entry);
    found.set(path, kind);
    if (kind === 'folder') await entriesUnder(folder, path, found);
  }
  return found;
}

/** Removes from `folder` every entry that `wanted` (relative path → kind) does not hold as that kind. */
export async function pruneTo(folder: string, wanted: ReadonlyMap<string, EntryKind>, under = ''): Promise<void> {
  for (const entry of await readdir(join(folder, under), { withFileTypes: true })) {
    const path = under ? `${under}/${entry.name}` : entry.name;
    const kind = kindOfEntry(entry);
    if (wanted.get(path) !== kind) await rm(join(folder, path), { recursive: true, force: true });
    else if (kind === 'folder') await pruneTo(folder, wanted, path);
  }
}
