// The CLI as users run it: bin/reglab.js over the build (`npm test` builds first), in a folder whose
// .reglab holds the state.
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** The CLI as users run it. */
export const CLI = resolve('bin/reglab.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** How long one command may take unless told otherwise. */
const DEFAULT_TIMEOUT_MS = 180_000;

/** `file ARGS...` run in `folder` with the REGLAB_HOME of that folder (`folder/.reglab`), its exit code kept. */
export function runIn(
  folder: string,
  file: string,
  args: string[],
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<CliResult> {
  return runWithHome(folder, join(folder, '.reglab'), file, args, timeoutMs);
}

/** `reglab ARGS...` against the control plane of the state folder `home` (a test's own, started in-process). */
export function reglabOf(home: string, ...args: string[]): Promise<CliResult> {
  return runWithHome(home, home, process.execPath, [CLI, ...args]);
}

async function runWithHome(
  folder: string,
  home: string,
  file: string,
  args: string[],
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd: folder,
      env: { ...process.env, REGLAB_HOME: home },
      timeout: timeoutMs,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * A runner of `reglab ARGS...` in the folder `folder()` names (read at each call, it may be made
 * later); each command may take `timeoutMs` (an image build takes minutes).
 */
export function reglabIn(
  folder: () => string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): (...args: string[]) => Promise<CliResult> {
  return (...args) => runIn(folder(), process.execPath, [CLI, ...args], timeoutMs);
}
