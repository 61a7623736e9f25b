// The LDK daemon built on demand: a machine set up without it (setup.sh without --all or --test)
// gets it when a lab with an ldk node first comes up. Here a node binaries folder of the test's own
// holds btcd and lnd but no reglab-ldk: the bring-up's prepare phase builds it there (cargo, in the
// machine's kept target folder: quick when that is up to date, minutes when not), says first what
// it builds and how long that usually takes, reports cargo's lines, and the ldk node runs on it; a
// second lab finds it built and says nothing of it.
// Its own labs: they run on a node binaries folder of their own.
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBinDir } from '../../control-plane/src/home.js';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

/** What a bring-up said of its preparation (`reglab up` prints these lines), and where among its events. */
const imageLines = (events: LabEvent[]) =>
  events.flatMap((event, index) => (event.type === 'image' ? [{ line: event.line, index }] : []));

describe('an ldk node on a machine without the LDK daemon', () => {
  const labs: Regtest[] = [];
  const machineBinDir = nodeBinDir();
  const binDir = mkdtempSync(join(tmpdir(), 'reglab-bin-'));
  const earlierBinDir = process.env.REGLAB_BIN_DIR;

  beforeAll(() => {
    for (const binary of ['btcd', 'btcctl', 'lnd', 'lncli'])
      symlinkSync(join(machineBinDir, binary), join(binDir, binary));
    process.env.REGLAB_BIN_DIR = binDir;
  });
  afterAll(async () => {
    for (const lab of labs) await lab.stop();
    if (earlierBinDir === undefined) delete process.env.REGLAB_BIN_DIR;
    else process.env.REGLAB_BIN_DIR = earlierBinDir;
    rmSync(binDir, { recursive: true, force: true });
  });

  it("is built by the first lab's bring-up, which says so before cargo's lines, then runs it", async () => {
    expect(existsSync(join(binDir, 'reglab-ldk'))).toBe(false);
    const lab = await startRegtest({ ldk: ['dave'], indexer: true });
    labs.push(lab);
    const said = imageLines(lab.events);
    expect(said[0]?.line).toBe(
      "building reglab-ldk, the LDK node daemon this lab's ldk nodes run, once for this machine: about 6 minutes on two idle cores, longer on a busy machine",
    );
    expect(said.map(({ line }) => line)).toContainEqual(expect.stringMatching(/^Finished `release` profile/));
    expect(said.at(-1)?.line).toMatch(/^reglab-ldk built in \d+\.\d min$/);
    // all of it before anything of the lab started
    const firstStart = lab.events.findIndex((event) => event.type === 'service');
    expect(said.at(-1)!.index).toBeLessThan(firstStart);
    expect(existsSync(join(binDir, 'reglab-ldk'))).toBe(true);
    const health = await fetch(`http://${lab.address('dave', 'api')}/health`);
    expect(health.status).toBe(200);
  }, 1_800_000);

  it('is found built by the next lab, which says nothing of it', async () => {
    const lab = await startRegtest({ ldk: ['erin'], indexer: true });
    labs.push(lab);
    expect(imageLines(lab.events)).toEqual([]);
    expect((await fetch(`http://${lab.address('erin', 'api')}/health`)).status).toBe(200);
  });
});
