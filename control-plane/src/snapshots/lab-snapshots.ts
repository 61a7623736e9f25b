// Saving a lab as a snapshot, bringing a lab up from one, and resetting a lab to the snapshot it
// came from. Every service is stopped cleanly while its data is copied, so the copy is consistent
// (PostgreSQL shut down, lnd's and btcd's databases closed, Redis saved to disk), then started again;
// a reset kills them instead (PostgreSQL aside), as what they hold is replaced, or holds them where
// the runtime can (docker: in their containers, see ServiceData.hold).
import { conflict, invalid } from '../../../lib/errors.js';
import { allocateHostPorts, prepareRuntime, type LabDriverOptions } from '../lab/bring-up.js';
import type { LabState, ServiceState } from '../lab/state.js';
import { discardServices, stopServices } from '../lab/tear-down.js';
import type { LabManager } from '../manager.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { kindDefinition } from '../nodes/registry.js';
import { parseLabSpec } from '../spec/parse.js';
import { exportChain } from './chain-blocks.js';
import { describeSnapshot, manifestOf, restoreLabRecord, SNAPSHOT_FORMAT, type SnapshotManifest } from './manifest.js';
import { serviceDataFor, type ServiceData } from './service-data.js';
import { startAgain, type DataReady } from './start-again.js';
import { SnapshotStore } from './store.js';

type Manifest = ReturnType<SnapshotStore['read']>;

/** The services whose data folder (or volume) a snapshot holds: all but the chain node, which it holds as blocks. */
const withData = (lab: LabState) => Object.values(lab.services).filter((service) => service.name !== CHAIN_SERVICE);

/**
 * Restores every service's data from the snapshot at once, in the background, and the lab's record
 * at once: the answer resolves (or rejects) when a service's data is back, which its start awaits.
 */
function restoreInBackground(lab: LabState, manifest: Manifest, data: ServiceData): DataReady {
  const restores = new Map(
    withData(lab).map((service) => {
      const restored = data.restore(lab, service, manifest.dir);
      restored.catch(() => undefined); // reported by the service's start, which awaits it
      return [service.name, restored] as const;
    }),
  );
  restoreLabRecord(lab, manifest);
  return (name) => restores.get(name) ?? Promise.resolve();
}

export class LabSnapshots {
  readonly store: SnapshotStore;

  constructor(private readonly manager: LabManager) {
    this.store = new SnapshotStore(manager.home);
  }

  list() {
    return this.store.list().map(describeSnapshot);
  }

  /**
   * Saves a ready lab as snapshot `name`: its services but the chain node stop, the chain's blocks
   * and the others' data are copied, they start again. If the copy fails the lab still comes back,
   * and the error is thrown once it has.
   */
  async save(labName: string, name: string): Promise<SnapshotManifest> {
    this.store.assertFree(name);
    this.manager.session(labName); // ready, or 409 before anything stops
    let failure: unknown;
    const saved = await this.manager.whilePaused(labName, ['ready'], async (lab, options) => {
      const data = await serviceDataFor(options.runtimeOptions.runtime);
      let manifest: SnapshotManifest | undefined;
      const session = await startAgain(lab, options, {
        before: async (phase, access) => {
          const flush = (service: ServiceState) =>
            kindDefinition(service.kind).flush?.(access, service) ?? Promise.resolve();
          // the chain node keeps running: its blocks are read from it, and btcd would delete them if restarted
          await phase('stop', () =>
            stopServices(lab, options.runtimeOptions.runtime, {
              onEvent: options.onEvent,
              beforeStop: flush,
              except: [CHAIN_SERVICE],
            }),
          );
          try {
            manifest = await phase('copy', () =>
              this.store.create(name, async (dir) => {
                const [chain, ...sizes] = await Promise.all([
                  exportChain(access.chain, dir),
                  ...withData(lab).map((service) => data.save(lab, service, dir)),
                ]);
                return manifestOf(
                  lab,
                  name,
                  chain.height,
                  sizes.reduce((total, size) => total + size, chain.bytes),
                );
              }),
            );
            lab.snapshot = name;
          } catch (error) {
            failure = error;
          }
        },
      });
      return { session, result: manifest };
    });
    if (!saved) throw failure;
    return saved;
  }

  /** Starts bringing up, in the background, the lab snapshot `name` holds, as it was then. */
  async up(name: string): Promise<LabState> {
    const manifest = this.compatible(this.store.read(name));
    const spec = parseLabSpec(manifest.specText, `snapshot ${name}`);
    return this.manager.launch(
      spec.name,
      (dir) => {
        const lab = { ...this.manager.newLab(spec, manifest.specText, dir), snapshot: name };
        restoreLabRecord(lab, manifest);
        const planned = Object.keys(lab.services).sort().join(', ');
        const held = Object.keys(manifest.services).sort().join(', ');
        if (planned !== held)
          throw invalid(
            'SNAPSHOT_INCOMPATIBLE',
            `snapshot ${name} holds the services ${held}, but its lab.yaml now plans ${planned}: save the snapshot again with this version of reglab`,
          );
        return lab;
      },
      (lab, options) => this.restore(lab, manifest, options),
    );
  }

  private restore(lab: LabState, manifest: Manifest, options: LabDriverOptions) {
    return startAgain(lab, options, {
      replayFrom: manifest.dir,
      before: async (phase) => {
        await phase('prepare', async () => {
          await prepareRuntime(
            lab,
            options,
            withData(lab).map((service) => service.name),
          );
          await allocateHostPorts(
            lab,
            Object.fromEntries(Object.entries(manifest.services).map(([service, held]) => [service, held.hostPorts])),
          );
        });
        return restoreInBackground(lab, manifest, await serviceDataFor(options.runtimeOptions.runtime));
      },
    });
  }

  /** Puts lab `labName` back to the snapshot it was restored from or last saved. */
  async reset(labName: string): Promise<{ lab: LabState; snapshot: string }> {
    const name = this.manager.get(labName).snapshot;
    if (!name) {
      throw conflict(
        'NOT_FROM_SNAPSHOT',
        `lab "${labName}" was not brought up from a snapshot and has saved none, so there is nothing to reset it to: save one with \`reglab snapshot save NAME\` (\`reglab reset\` then goes back to it), or bring a lab up with \`reglab up --from-snapshot NAME\``,
      );
    }
    const manifest = this.compatible(this.store.read(name));
    await this.manager.whilePaused(labName, ['ready', 'degraded', 'failed'], async (lab, options) => {
      const session = await startAgain(lab, options, {
        replayFrom: manifest.dir,
        before: async (phase) => {
          // what the services hold is replaced: no need to wait for each to put it at rest
          const data = await serviceDataFor(options.runtimeOptions.runtime);
          const hold = data.hold;
          await phase('stop', () =>
            discardServices(lab, options.runtimeOptions.runtime, {
              onEvent: options.onEvent,
              hold: hold && ((service) => hold(lab, service)),
            }),
          );
          return restoreInBackground(lab, manifest, data);
        },
      });
      return { session, result: undefined };
    });
    return { lab: this.manager.get(labName), snapshot: name };
  }

  async remove(name: string): Promise<void> {
    await this.store.remove(name);
  }

  private compatible(manifest: Manifest): Manifest {
    if (manifest.format !== SNAPSHOT_FORMAT)
      throw invalid(
        'SNAPSHOT_INCOMPATIBLE',
        `snapshot ${manifest.name} has format ${manifest.format}; this reglab reads format ${SNAPSHOT_FORMAT}: save it again`,
      );
    return manifest;
  }
}
