// The entries of a tar archive, read from their headers: ustar names (with their prefix), GNU long
// names and pax paths. Only headers are read; each entry's content is skipped.
import { open } from 'node:fs/promises';

export type EntryKind = 'file' | 'folder' | 'link' | 'other';

export interface TarEntry {
  /** As archived, without a leading ./ or / or a trailing /; '' for the archive's top folder. */
  name: string;
  kind: EntryKind;
  mode: number;
  uid: number;
  gid: number;
}

const BLOCK = 512;

const field = (header: Buffer, offset: number, length: number) =>
  header.toString('utf8', offset, offset + length).replace(/\0.*$/s, '');
const octal = (header: Buffer, offset: number, length: number) =>
  parseInt(field(header, offset, length).trim() || '0', 8);

/** A size field: octal, or base-256 (high bit set) for a file of 8 GiB or more. */
function sizeOf(header: Buffer): number {
  if ((header[124] & 0x80) === 0) return octal(header, 124, 12);
  let size = header[124] & 0x7f;
  for (let i = 125; i < 136; i++) size = size * 256 + header[i];
  return size;
}

const kindOf = (typeflag: string): EntryKind => {
  if (typeflag === '5') return 'folder';
  if (typeflag === '2') return 'link';
  // regular ('0', or NUL in old archives), contiguous ('7'), or a hard link to a regular file
  return ['0', '\0', '7', '1'].includes(typeflag) ? 'file' : 'other';
};

export const normalName = (name: string) =>
  name
    .replace(/^(?:\.?\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/^\.$/, '');

/** The path a pax extended header gives the next entry, if any. */
function paxPath(records: string): string | undefined {
  for (const line of records.split('\n')) {
    const match = /^\d+ path=(.*)$/s.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

export async function readTarEntries(archive: string): Promise<TarEntry[]> {
  const file = await open(archive);
  try {
    const entries: TarEntry[] = [];
    const header = Buffer.alloc(BLOCK);
    let position = 0;
    let longName: string | undefined;
    for (;;) {
      const { bytesRead } = await file.read(header, 0, BLOCK, position);
      if (bytesRead < BLOCK || header.every((byte) => byte === 0)) return entries;
      const size = sizeOf(header);
      const typeflag = header.toString('latin1', 156, 157);
      position += BLOCK;
      if (typeflag === 'L' || typeflag === 'x') {
        const { buffer } = await file.read(Buffer.alloc(size), 0, size, position);
        const text = buffer.toString('utf8');
        longName = typeflag === 'L' ? text.replace(/\0.*$/s, '') : (paxPath(text) ?? longName);
      } else if (typeflag !== 'K' && typeflag !== 'g') {
        const prefix = field(header, 345, 155);
        const ustarName = field(header, 0, 100);
        const isUstar = header.toString('latin1', 257, 262) === 'ustar';
        entries.push({
          name: normalName(longName ?? (isUstar && prefix ? `${prefix}/${ustarName}` : ustarName)),
          kind: kindOf(typeflag),
          mode: octal(header, 100, 8) & 0o7777,
          uid: octal(header, 108, 8),
          gid: octal(header, 116, 8),
        });
        longName = undefined;
      }
      position += Math.ceil(size / BLOCK) * BLOCK;
    }
  } finally {
    await file.close();
  }
}
