// Ends whatever a test run left behind: every process that carries the run's marker in its
// environment (each process a test starts inherits it, lnd and postgres included) and the
// containers the docker runtime recorded. Run by the test run's global teardown, and as a
// watchdog process that does the same when the run itself dies (Ctrl-C, SIGTERM, SIGKILL).
//   node test/support/reaper.mjs <pid of the test run> <registry folder>
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** vitest and its worker processes (tinypool's), which carry the marker too. */
const isVitest = (pid) => {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    return command.includes('vitest') || command.includes('tinypool');
  } catch {
    return false;
  }
};

/** Process groups the run started detached, as recorded (a process may rewrite its environment). */
function recorded(registry) {
  const file = join(registry, 'pids');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

/** Processes whose environment holds REGLAB_PROCESS_REGISTRY=<registry>, but this one (and vitest's own, when asked). */
export function marked(registry, spareVitest) {
  const marker = `REGLAB_PROCESS_REGISTRY=${registry}`;
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter((pid) => {
    if (pid === process.pid || (spareVitest && isVitest(pid))) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
    } catch {
      return false;
    }
  });
}

/** Removes a container; true when there was one to remove (one removed already answers 404). */
function removeContainer(id) {
  const socket = ['/run/podman/podman.sock', '/var/run/docker.sock'].find((path) => existsSync(path));
  if (!socket) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, method: 'DELETE', path: `/containers/${id}?force=true&v=true` }, (res) => res.resume().on('end', () => resolve(res.statusCode === 200 || res.statusCode === 204)));
    req.on('error', () => resolve(false));
    req.end();
  });
}

const commandOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).map((part) => part.split('/').at(-1)).join(' ').slice(0, 80);
  } catch {
    return `pid ${pid}`;
  }
};

/**
 * SIGTERM, a grace period, then SIGKILL; then the containers still there. Returns what it found
 * (the processes' commands, the number of containers). At the end of a run vitest's own processes
 * (which carry the marker too) are spared.
 */
export async function reap(registry, { spareVitest = false } = {}) {
  const groups = recorded(registry).filter(alive);
  const found = [...new Set([...marked(registry, spareVitest), ...groups])];
  const commands = found.map(commandOf);
  const signal = (name) => {
    for (const pid of groups) {
      try {
        process.kill(-pid, name);
      } catch {}
    }
    for (const pid of found) {
      try {
        process.kill(pid, name);
      } catch {}
    }
  };
  signal('SIGTERM');
  for (let waited = 0; waited < 5_000 && found.some(alive); waited += 100) await sleep(100);
  signal('SIGKILL');
  const recordedContainers = existsSync(join(registry, 'containers')) ? readFileSync(join(registry, 'containers'), 'utf8').split('\n').filter(Boolean) : [];
  let containers = 0;
  for (const id of new Set(recordedContainers)) if (await removeContainer(id)) containers++;
  return { processes: commands, containers };
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const [runPid, registry] = [Number(process.argv[2]), process.argv[3]];
  for (;;) {
    await sleep(500);
    if (!existsSync(registry)) process.exit(0); // the run ended and cleaned up itself
    if (!alive(runPid)) {
      await reap(registry);
      rmSync(registry, { recursive: true, force: true });
      process.exit(0);
    }
  }
}
