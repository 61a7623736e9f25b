// A snapshot's manifest keeps what a restored lab needs besides its services' data: its secrets and
// the names of its RGB assets (ticker -> asset id), which the faucet's launch reads.
import { describe, expect, it } from 'vitest';
import { newLabState } from '../../control-plane/src/lab/bring-up.js';
import {
  manifestOf,
  restoreLabRecord,
  SNAPSHOT_FORMAT,
  type SnapshotManifest,
} from '../../control-plane/src/snapshots/manifest.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

const YAML = `name: shot
nodes:
  - { name: issuer, kind: rgb }
  - { name: holder, kind: rgb }
assets:
  - { ticker: LAB, supply: 100, issuer: issuer, distribute: { holder: 10 } }
`;

const labState = () => newLabState(parseLabSpec(YAML), YAML, '/tmp/reglab-manifest-test');

describe('snapshot manifest', () => {
  it("keeps the lab's assets, and a lab restored from it takes them back (and its secrets)", () => {
    const saved = labState();
    saved.assets = { LAB: 'rgb:lab-id', NEW: 'rgb:issued-later' };
    // as the store writes it and reads it back
    const manifest = JSON.parse(JSON.stringify(manifestOf(saved, 'shot-1', 500, 1234))) as SnapshotManifest;
    expect(manifest).toMatchObject({
      format: SNAPSHOT_FORMAT,
      name: 'shot-1',
      lab: 'shot',
      assets: { LAB: 'rgb:lab-id', NEW: 'rgb:issued-later' },
      height: 500,
    });

    const restored = labState();
    expect(restored.assets).toBeUndefined();
    restoreLabRecord(restored, manifest);
    expect(restored.assets).toEqual({ LAB: 'rgb:lab-id', NEW: 'rgb:issued-later' });
    expect(restored.secrets).toEqual(saved.secrets);
  });

  it("resets the assets to the snapshot's: one issued after it is forgotten", () => {
    const manifest = manifestOf(Object.assign(labState(), { assets: { LAB: 'rgb:lab-id' } }), 'shot-2', 500, 0);
    const lab = Object.assign(labState(), { assets: { LAB: 'rgb:lab-id', LATER: 'rgb:later' } });
    restoreLabRecord(lab, manifest);
    expect(lab.assets).toEqual({ LAB: 'rgb:lab-id' });
  });
});
