// A node binary built on demand (reglab-ldk): built by its script the first time a lab needs it,
// each line of the build reported as progress; nothing done, nothing said, once it is up to date.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureNodeBinary, type OnDemandBuild } from '../../control-plane/src/nodes/binary-build.js';

describe('a node binary built on demand', () => {
  let dir: string;
  let build: OnDemandBuild;
  const builds = () => readFileSync(join(dir, 'builds'), 'utf8').length;

  /** A build script as scripts/build-ldk.sh behaves: --check answers 0 once `built` exists. */
  const script = (body: string) => {
    writeFileSync(
      build.script,
      `set -e\nif [ "$1" = --check ]; then [ -f ${dir}/built ]; exit; fi\nprintf x >> ${dir}/builds\n${body}\n`,
    );
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reglab-binary-build-'));
    writeFileSync(join(dir, 'builds'), '');
    build = { binary: 'demo-daemon', what: 'a demo daemon', script: join(dir, 'build.sh'), usually: 'a moment' };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is built once, its lines reported in order between what it is and how long it took', async () => {
    script(`echo "   Compiling one v1.0"\nsleep 0.2\necho "   Compiling two v2.0" >&2\ntouch ${dir}/built`);
    const lines: string[] = [];
    await ensureNodeBinary(build, (line) => lines.push(line));
    expect(lines).toEqual([
      'building demo-daemon, a demo daemon, once for this machine: a moment',
      'Compiling one v1.0',
      'Compiling two v2.0',
      expect.stringMatching(/^demo-daemon built in \d+\.\d min$/),
    ]);
    const again: string[] = [];
    await ensureNodeBinary(build, (line) => again.push(line));
    expect(again).toEqual([]);
    expect(builds()).toBe(1);
  });

  it('is built once for two labs that need it at the same time', async () => {
    script(`sleep 0.3\ntouch ${dir}/built`);
    await Promise.all([ensureNodeBinary(build, () => undefined), ensureNodeBinary(build, () => undefined)]);
    expect(builds()).toBe(1);
  });

  it('fails with the last lines of a failed build and the command that builds it by hand', async () => {
    script('echo "error[E0425]: cannot find value"\nexit 101');
    const failed = ensureNodeBinary(build, () => undefined);
    await expect(failed).rejects.toThrow(
      `building demo-daemon failed (\`bash ${build.script}\` exited with 101); its last lines:\nerror[E0425]: cannot find value`,
    );
    // a failure is not remembered: the next lab that needs it tries again
    await expect(ensureNodeBinary(build, () => undefined)).rejects.toThrow('exited with 101');
    expect(builds()).toBe(2);
  });
});
