// A docker snapshot's volume archive unpacked straight into a new volume's folder: the engines name
// the archive's entries data/... or ./... (the folder itself first); either way the files land at the
// folder's root with their owners and modes, and the folder takes the mode and owner /data had.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unpackInto } from '../../control-plane/src/snapshots/docker-data.js';

const asRoot = process.getuid?.() === 0;
// a container user's ids, which need not exist on this machine
const CONTAINER_UID = 70;
const CONTAINER_GID = 71;

let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'reglab-unpack-'));
  const data = join(work, 'data');
  mkdirSync(join(data, 'pg'), { recursive: true });
  writeFileSync(join(data, 'pg', 'PG_VERSION'), '15\n', { mode: 0o600 });
  chmodSync(data, 0o700);
  if (asRoot) {
    for (const path of [data, join(data, 'pg'), join(data, 'pg', 'PG_VERSION')])
      chownSync(path, CONTAINER_UID, CONTAINER_GID);
  }
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

function unpacked(folder: string) {
  const file = join(folder, 'pg', 'PG_VERSION');
  return { text: readFileSync(file, 'utf8'), file: statSync(file), folder: statSync(folder) };
}

describe.each([
  ['data/...', ['-C', '.', 'data']],
  ['./... (the folder itself first)', ['-C', 'data', '.']],
])('an archive whose entries are named %s', (_shape, tarArgs) => {
  it('unpacks at the root of the volume folder, with the owners and modes of /data', async () => {
    const archive = join(work, 'volume.tar');
    execFileSync('tar', ['-c', '-f', archive, ...tarArgs], { cwd: work });
    const folder = join(work, 'volume');
    mkdirSync(folder, { mode: 0o755 });

    await unpackInto(folder, archive);

    const result = unpacked(folder);
    expect(result.text).toBe('15\n');
    expect(result.file.mode & 0o777).toBe(0o600);
    expect(result.folder.mode & 0o777).toBe(0o700);
    if (asRoot) {
      expect([result.folder.uid, result.folder.gid]).toEqual([CONTAINER_UID, CONTAINER_GID]);
      expect([result.file.uid, result.file.gid]).toEqual([CONTAINER_UID, CONTAINER_GID]);
    }
  });
});
