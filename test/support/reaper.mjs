// Ends whatever a test run left behind: every process that carries the run's marker in its
// environment (each process a test starts inherits it, lnd and postgres included) and the
// containers the docker runtime recorded. Run by the test run's global teardown, and as a
// watchdog process that does the same when the run itself dies (Ctrl-C, SIGTERM, SIGKILL).
//   node test/support/reaper.mjs <pid of the test run> <registry folder>
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** Whether process `pid` exists (a negative pid: any process of that group). */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process's command line, NUL-separated; empty when it is gone. */
const commandLine = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return '';
  }
};
const isReaper = (pid) => commandLine(pid).includes('reaper.mjs');
/** vitest and its worker processes (tinypool's), which carry the marker too. */
const isVitest = (pid) => /vitest|tinypool/.test(commandLine(pid));

/** A process's start time (/proc/PID/stat field 22); undefined when there is no such process. */
function startTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const parentOf = (pid) => {
  try {
    return Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
  } catch {
    return undefined;
  }
};

/**
 * Process groups the run started detached, as recorded with their leader's start time (a process
 * may rewrite its environment). A pid now held by a process that started later was given to
 * another process (a group that still has members keeps its id: their group is the recorded one).
 */
function recorded(registry) {
  const file = join(registry, 'pids');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .filter(([pid, started]) => {
      const now = startTimeOf(Number(pid));
      return now === undefined || !started || now === started;
    })
    .map(([pid]) => Number(pid));
}

/**
 * Processes whose environment holds REGLAB_PROCESS_REGISTRY=<registry>, but this one and other
 * reapers (a nested run's watchdog, which ends by itself), and, when asked, vitest's own (its
 * processes, and its workers, which may have renamed themselves after their test file).
 */
export function marked(registry, spareVitest) {
  const marker = `REGLAB_PROCESS_REGISTRY=${registry}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      if (pid === process.pid || isReaper(pid)) return false;
      if (spareVitest && (isVitest(pid) || parentOf(pid) === process.pid)) return false;
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
    const req = request({ socketPath: socket, method: 'DELETE', path: `/containers/${id}?force=true&v=true` }, (res) =>
      res.resume().on('end', () => resolve(res.statusCode === 200 || res.statusCode === 204)),
    );
    req.on('error', () => resolve(false));
    req.end();
  });
}

const commandOf = (pid) =>
  commandLine(pid)
    .split('\0')
    .filter(Boolean)
    .map((part) => part.split('/').at(-1))
    .join(' ')
    .slice(0, 80) || `pid ${pid}`;

/**
 * SIGTERM, a grace period, then SIGKILL; then the containers still there. Returns what it found
 * (the processes' commands, the number of containers). At the end of a run vitest's own processes
 * (which carry the marker too) are spared.
 */
export async function reap(registry, { spareVitest = false } = {}) {
  const groups = recorded(registry).filter((pid) => alive(-pid));
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
  for (let waited = 0; waited < 5_000 && (found.some(alive) || groups.some((pid) => alive(-pid))); waited += 100)
    await sleep(100);
  signal('SIGKILL');
  const recordedContainers = existsSync(join(registry, 'containers'))
    ? readFileSync(join(registry, 'containers'), 'utf8').split('\n').filter(Boolean)
    : [];
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
