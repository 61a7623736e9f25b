// A snapshot's copy written over the data a service has (a reset, or a docker volume an earlier lab
// of the name left): afterwards the folder holds what the snapshot holds and nothing else, files
// written over keep their inode, and a symbolic link the service left where the snapshot has a file
// or a folder is replaced, never written through.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LabState, ServiceState } from '../../control-plane/src/lab/state.js';
import { unpackInto } from '../../control-plane/src/snapshots/docker-data.js';
import { processData } from '../../control-plane/src/snapshots/process-data.js';
import { readTarEntries } from '../../control-plane/src/snapshots/tar-entries.js';
import { entriesUnder } from '../../control-plane/src/snapshots/write-over.js';

/** What the snapshot's folder holds, by path. */
const SNAPSHOT_ENTRIES = {
  PG_VERSION: 'file',
  base: 'folder',
  'base/1': 'folder',
  'base/1/1255': 'file',
  'base/config': 'file',
  linked: 'file',
  pg_wal: 'folder',
};

let work: string;
/** A file outside the data, which a link in it points at. */
let outside: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'reglab-write-over-'));
  outside = join(work, 'outside.txt');
  writeFileSync(outside, "not the service's\n");
  const snapshot = join(work, 'snapshot');
  mkdirSync(join(snapshot, 'base', '1'), { recursive: true });
  writeFileSync(join(snapshot, 'PG_VERSION'), '15\n', { mode: 0o600 });
  writeFileSync(join(snapshot, 'base', '1', '1255'), 'catalog as saved');
  writeFileSync(join(snapshot, 'base', 'config'), 'a file in the snapshot');
  writeFileSync(join(snapshot, 'linked'), 'a file in the snapshot');
  mkdirSync(join(snapshot, 'pg_wal'));
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

/**
 * The data as the service left it after the snapshot: changed, added to, a link and a folder where the snapshot has
 * files.
 */
function dataAfterTheSnapshot(folder: string) {
  mkdirSync(join(folder, 'base', '1'), { recursive: true });
  mkdirSync(join(folder, 'pg_wal'), { recursive: true });
  writeFileSync(join(folder, 'PG_VERSION'), '15\n');
  writeFileSync(join(folder, 'base', '1', '1255'), 'catalog written after the snapshot, longer than before');
  writeFileSync(join(folder, 'base', '1', '16384'), 'a table made after the snapshot');
  writeFileSync(join(folder, 'pg_wal', '000000010000000000000002'), 'a segment made after the snapshot');
  mkdirSync(join(folder, 'base', 'config'));
  writeFileSync(join(folder, 'base', 'config', 'inside'), 'under a folder where the snapshot has a file');
  symlinkSync(outside, join(folder, 'linked'));
  return statSync(join(folder, 'base', '1', '1255')).ino;
}

async function expectSnapshotHeld(folder: string, catalogInode: number) {
  expect(Object.fromEntries(await entriesUnder(folder))).toEqual(SNAPSHOT_ENTRIES);
  expect(readFileSync(join(folder, 'base', '1', '1255'), 'utf8')).toBe('catalog as saved');
  expect(readFileSync(join(folder, 'base', 'config'), 'utf8')).toBe('a file in the snapshot');
  expect(readFileSync(join(folder, 'linked'), 'utf8')).toBe('a file in the snapshot');
  expect(lstatSync(join(folder, 'linked')).isSymbolicLink()).toBe(false);
  expect(statSync(join(folder, 'PG_VERSION')).mode & 0o777).toBe(0o600);
  expect(statSync(join(folder, 'base', '1', '1255')).ino).toBe(catalogInode);
  expect(readFileSync(outside, 'utf8')).toBe("not the service's\n");
}

describe('a snapshot written over the data a service has', () => {
  it.each([
    ['data/...', ['--transform', 's,^snapshot,data,', 'snapshot']],
    ['./... (the folder itself first)', ['-C', 'snapshot', '.']],
  ])('docker: an archive whose entries are named %s, unpacked over a volume folder', async (_shape, tarArgs) => {
    const archive = join(work, 'volume.tar');
    execFileSync('tar', ['-c', '-f', archive, ...tarArgs], { cwd: work });
    const volume = join(work, 'volume');
    const catalogInode = dataAfterTheSnapshot(volume);

    await unpackInto(volume, archive, true);

    await expectSnapshotHeld(volume, catalogInode);
  });

  it("process: the snapshot's folder copied over the service's", async () => {
    const lab = { dir: join(work, 'lab') } as LabState;
    const service = { name: 'postgres' } as ServiceState;
    const snapshotDir = join(work, 'saved');
    mkdirSync(join(snapshotDir, 'data'), { recursive: true });
    execFileSync('cp', ['-a', join(work, 'snapshot'), join(snapshotDir, 'data', 'postgres')]);
    const data = join(lab.dir, 'services', 'postgres');
    const catalogInode = dataAfterTheSnapshot(data);

    await processData.restore(lab, service, snapshotDir);

    await expectSnapshotHeld(data, catalogInode);
  });
});

describe('readTarEntries', () => {
  it.each(['gnu', 'pax', 'ustar'])('reads every entry of a %s archive, long names included', async (format) => {
    const deep = join('snapshot', 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(join(work, deep), { recursive: true });
    symlinkSync('../PG_VERSION', join(work, 'snapshot', 'link'));
    const archive = join(work, `${format}.tar`);
    execFileSync('tar', ['-c', `--format=${format}`, '-f', archive, '-C', 'snapshot', '.'], { cwd: work });

    const entries = await readTarEntries(archive);

    expect(Object.fromEntries(entries.map((entry) => [entry.name, entry.kind]))).toEqual({
      ...SNAPSHOT_ENTRIES,
      '': 'folder',
      link: 'link',
      [`${'a'.repeat(60)}`]: 'folder',
      [`${'a'.repeat(60)}/${'b'.repeat(60)}`]: 'folder',
    });
    expect(entries.find((entry) => entry.name === 'PG_VERSION')?.mode).toBe(0o600);
  });
});
