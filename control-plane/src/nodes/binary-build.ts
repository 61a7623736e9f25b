// Node binaries that scripts/setup.sh leaves out of a plain set-up because few labs run them and
// they take minutes to build: the first lab that needs one builds it, its output lines reported as
// the bring-up's progress. Each build script decides when its binary is up to date (a pin stamp);
// `--check` asks it without building.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { projectRoot } from '../../../lib/project-root.js';

export interface OnDemandBuild {
  /** The binary's name in the node binaries folder (home.ts, nodeBinDir). */
  binary: string;
  /** What it is, for the user reading the bring-up's progress. */
  what: string;
  /** The build script (from the project's root, or absolute); it takes --check. */
  script: string;
  /** How long a first build usually takes, said before it starts. */
  usually: string;
}

/** Lines of a failed build quoted in its error. */
const FAILURE_LINES = 30;

/** Builds in progress, by binary: two labs that need one at once wait for the same build. */
const building = new Map<string, Promise<void>>();

/** Builds `build`'s binary unless its script finds it up to date, reporting each line of the build. */
export function ensureNodeBinary(build: OnDemandBuild, onProgress: (line: string) => void): Promise<void> {
  const running = building.get(build.binary);
  if (running) return running;
  const made = buildUnlessCurrent(build, onProgress).finally(() => building.delete(build.binary));
  building.set(build.binary, made);
  return made;
}

async function buildUnlessCurrent(build: OnDemandBuild, onProgress: (line: string) => void): Promise<void> {
  const script = resolve(projectRoot(), build.script);
  if ((await runScript(script, ['--check'], () => undefined)).status === 0) return;
  onProgress(`building ${build.binary}, ${build.what}, once for this machine: ${build.usually}`);
  const started = Date.now();
  const lines: string[] = [];
  const { status } = await runScript(script, [], (line) => {
    lines.push(line);
    if (lines.length > FAILURE_LINES) lines.shift();
    onProgress(line);
  });
  if (status !== 0)
    throw new Error(
      `building ${build.binary} failed (\`bash ${build.script}\` exited with ${status}); its last lines:\n${lines.join('\n')}`,
    );
  onProgress(`${build.binary} built in ${((Date.now() - started) / 60_000).toFixed(1)} min`);
}

/** Runs a bash script, each line of its output (stdout and stderr) given to `onLine` as it comes. */
function runScript(script: string, args: string[], onLine: (line: string) => void): Promise<{ status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        const trimmed = line.trim();
        if (trimmed) onLine(trimmed);
      });
    }
    child.on('error', reject);
    child.on('close', (status) => resolve({ status }));
  });
}
