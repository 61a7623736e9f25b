// A process lab's service data: its folder, copied with `cp -a` so owners (PostgreSQL's data
// belongs to the postgres user), modes and times stay as they were.
import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serviceDataDir } from '../runtimes/process/placement.js';
import type { ServiceData } from './service-data.js';

const run = promisify(execFile);
const inSnapshot = (snapshotDir: string, service: string) => join(snapshotDir, 'data', service);

async function copyTree(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true });
  await mkdir(join(to, '..'), { recursive: true });
  await run('cp', ['-a', from, to]);
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
