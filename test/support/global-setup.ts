// Fails the run early, with the fix, when a real part every integration test needs is missing
// (node binaries are checked where a test starts a node), and makes sure the run leaves nothing
// behind: every process a test starts carries the run's marker (REGLAB_PROCESS_REGISTRY, inherited
// through the environment) and every container is recorded; whatever is left is ended at the end
// of the run, or by the reaper watchdog when the run itself is interrupted or killed. It also runs
// the broker of the default-shaped lab the files that only use a lab share (shared-lab-broker.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBinDir } from '../../control-plane/src/nodes/postgres/server.js';
import { redisServerBinary } from '../../control-plane/src/nodes/redis/server.js';
import type { TestProject } from 'vitest/node';
import { stopTestClusterIfStarted } from './kubernetes.js';
import { reap } from './reaper.mjs';
import { startSharedLabBroker } from './shared-lab-broker.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  postgresBinDir();
  redisServerBinary();
  const registry = mkdtempSync(join(tmpdir(), 'reglab-test-run-'));
  // the watchdog is not marked itself: it outlives the run's teardown by design (it exits once the registry is gone)
  const watchdog = spawn(process.execPath, [join(import.meta.dirname, 'reaper.mjs'), String(process.pid), registry], {
    detached: true,
    stdio: 'ignore',
  });
  process.env.REGLAB_PROCESS_REGISTRY = registry;
  watchdog.unref();
  const sharedLab = await startSharedLabBroker(project.globalConfig.maxWorkers);
  project.provide('sharedLabBroker', sharedLab.url);
  return async () => {
    await sharedLab.stop();
    // before the reaper: the cluster's daemons do not carry the run's marker, and `down` also
    // undoes what they changed on the host
    await stopTestClusterIfStarted(registry);
    const left = await reap(registry, { spareVitest: true });
    rmSync(registry, { recursive: true, force: true }); // the watchdog sees it gone and exits
    if (left.processes.length + left.containers > 0)
      console.warn(
        `the test run left ${left.processes.length} process(es) [${left.processes.join('; ')}] and ${left.containers} container(s) running; ended them`,
      );
  };
}
