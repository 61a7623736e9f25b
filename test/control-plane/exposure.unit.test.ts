// A control plane open to the network (`reglab up --listen 0.0.0.0`) opens its labs' user-facing
// services too, whether a lab is new or brought back from a snapshot (both are planned by newLab);
// the chain node, the Lightning nodes and the databases stay on loopback.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LabManager } from '../../control-plane/src/manager.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { StateStore } from '../../control-plane/src/store.js';

const YAML = readFileSync('lab.yaml', 'utf8');

describe('which services of a lab listen beyond loopback', () => {
  const homes: string[] = [];
  const manager = (exposed: boolean) => {
    const home = mkdtempSync(join(tmpdir(), 'reglab-exposure-'));
    homes.push(home);
    return new LabManager(new StateStore(home), () => undefined, undefined, exposed);
  };
  const publicServices = (exposed: boolean) => {
    const lab = manager(exposed).newLab(parseLabSpec(YAML), YAML, join(homes.at(-1)!, 'default'));
    return Object.values(lab.services)
      .filter((service) => service.public)
      .map((service) => service.name)
      .sort();
  };
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  it('the wallet server, faucet and chain adapter when the control plane listens on the network', () => {
    expect(publicServices(true)).toEqual(['chain-adapter', 'faucet', 'wallet-server']);
  });

  it('none when it listens on loopback', () => {
    expect(publicServices(false)).toEqual([]);
  });
});
