// The programs as a lab runs them: each from its bundle (`npm run build`, from the TypeScript
// sources), which finds in node_modules what its packages keep beside their code.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lnService from 'ln-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../control-plane/src/util/ports.js';
import { LND_METHOD_FOLDERS, lightningFiles, lndMethodFile } from '../../lib/lightning/lnd/files.js';
import { BUNDLED_PROGRAMS, builtProgram, programArguments } from '../../lib/programs.js';
import { projectRoot } from '../../lib/project-root.js';
import { waitFor } from '../../lib/wait.js';

const dist = join(projectRoot(), 'dist');

describe('the bundled programs', () => {
  it('are what runs, each from its bundle', () => {
    const running = Object.fromEntries(
      Object.entries(BUNDLED_PROGRAMS).map(([name, entry]) => [name, programArguments(entry)]),
    );
    expect(running).toEqual(
      Object.fromEntries(Object.keys(BUNDLED_PROGRAMS).map((name) => [name, [join(dist, 'bundle', `${name}.js`)]])),
    );
  });

  describe('a service run from its bundle', () => {
    let child: ChildProcess;
    let dataDir: string;
    let url: string;
    let output = '';

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'reglab-bundled-proxy-'));
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      child = spawn(process.execPath, [builtProgram(dist, BUNDLED_PROGRAMS['rgb-proxy']!)!], {
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      await waitFor(async () => (await fetch(`${url}/health`)).ok, {
        timeoutMs: 30_000,
        intervalMs: 50,
        what: 'the bundled rgb-proxy',
        stopOn: () => child.exitCode !== null,
      }).catch((error: Error) => {
        throw new Error(`${error.message}\n${output}`);
      });
    });

    afterAll(() => {
      if (child?.exitCode === null) child.kill('SIGKILL');
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it("serves its docs page, whose files lie in swagger-ui's package folder", async () => {
      const script = await fetch(`${url}/docs/static/swagger-ui-bundle.js`);
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(100_000);
      const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths)).toContain('/health');
    });
  });

  describe("the lightning package's files, bundled in one", () => {
    const bundled = createRequire(import.meta.url)(join(dist, 'bundle', 'lightning.cjs')) as Record<
      string,
      () => unknown
    >;

    /** What a call with no lnd and no arguments gives: ln-service's functions check their arguments first. */
    async function outcome(method: unknown): Promise<unknown> {
      try {
        const result = (method as (args: object) => unknown)({});
        return result instanceof Promise
          ? await result.then(
              () => 'resolved',
              (error: unknown) => ({ rejected: error }),
            )
          : { returned: typeof result };
      } catch (error) {
        return { threw: String(error) };
      }
    }

    it('holds every file the project loads from it', () => {
      expect(Object.keys(bundled).sort()).toEqual(lightningFiles().sort());
    });

    it.each(Object.keys(LND_METHOD_FOLDERS) as (keyof typeof LND_METHOD_FOLDERS)[])(
      "%s answers a call without lnd as ln-service's own does",
      async (name) => {
        const ours = await outcome(bundled[lndMethodFile(name)]!());
        expect(ours).toEqual(await outcome(lnService[name]));
        expect(ours).not.toBe('resolved');
      },
    );
  });
});
