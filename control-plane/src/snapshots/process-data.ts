// A process lab's service data: its folder, copied with `cp -a` so owners (PostgreSQL's data
// belongs to the postgres user), modes and times stay as they were. A restore writes the copy over
// the folder when there is one (a reset), see write-over.ts.
import { execFile } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serviceDataDir } from '../runtimes/process/placement.js';
import type { ServiceData } from './service-data.js';
import { entriesUnder, pruneTo } from './write-over.js';

const run = promisify(execFile);
const inSnapshot = (snapshotDir: string, service: string) => join(snapshotDir, 'data', service);
const isFolder = (path: string) =>
  stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );

async function copyTree(from: string, to: string): Promise<void> {
  if (await isFolder(to)) {
    await pruneTo(to, await entriesUnder(from));
  } else {
    await rm(to, { recursive: true, force: true });
    await mkdir(join(to, '..'), { recursive: true });
  }
  // -T: into `to` itself, not a folder of its name inside it
  await run('cp', ['-a', '-T', from, to]);
}

export const processData: ServiceData = {
  async save(lab, service, snapshotDir) {
    const copy = inSnapshot(snapshotDir, service.name);
    await copyTree(serviceDataDir(lab.dir, service.name), copy);
    const { stdout } = await run('du', ['-sb', copy]);
    return Number(stdout.split('\t')[0]);
  },
  async restore(lab, service, snapshotDir) {
    await copyTree(inSnapshot(snapshotDir, service.name), serviceDataDir(lab.dir, service.name));
  },
};
