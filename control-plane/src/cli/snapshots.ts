// reglab snapshot save|list|rm and reglab reset. Saving and resetting stop and start a lab's
// services, so they go through the control plane; listing and removing are operations on the state
// folder, which need no control plane running, but for a control plane elsewhere (REGLAB_URL),
// whose state folder is its own.
import type { Command } from 'commander';
import { DomainError } from '../../../lib/errors.js';
import { STATUS_OF_KIND } from '../../../lib/http/errors.js';
import { reglabHome } from '../home.js';
import { describeSnapshot } from '../snapshots/manifest.js';
import { SnapshotStore } from '../snapshots/store.js';
import { ApiError, remoteUrl } from './client.js';
import type { CliContext } from './context.js';

type Snapshot = ReturnType<typeof describeSnapshot>;
type Phase = { name: string; ms: number };

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const phases = (list: Phase[]) => list.map((phase) => `${phase.name} ${seconds(phase.ms)}`).join(', ');

/** The state folder's snapshots; the store's refusals as the API would answer them (exit codes 2 and 3). */
async function inStore<T>(work: (store: SnapshotStore) => T | Promise<T>): Promise<T> {
  try {
    return await work(new SnapshotStore(reglabHome()));
  } catch (error) {
    if (error instanceof DomainError) throw new ApiError(STATUS_OF_KIND[error.kind], error.code, error.message);
    throw error;
  }
}

export function snapshotCommands(program: Command, cli: CliContext): void {
  const snapshot = program
    .command('snapshot')
    .description('snapshots of a lab: chain, nodes, channels, databases, secrets (docs/control-plane.md)');

  snapshot
    .command('save')
    .description('save the lab as a snapshot: its services stop while their data is copied, then start again')
    .argument('<name>', 'letters, digits, ".", "_" and "-"')
    .action(async (name: string) => {
      const client = await cli.client();
      const lab = await cli.labName(client);
      const started = Date.now();
      const saved = await client.request<Snapshot>('POST', `/labs/${lab}/snapshots`, { name });
      cli.out(
        `lab ${lab} saved as snapshot ${name} in ${seconds(Date.now() - started)}: height ${saved.height}, ${mib(saved.bytes)}; \`reglab reset\` goes back to it, \`reglab up --from-snapshot ${name}\` brings it up after \`reglab down\``,
        saved,
      );
    });

  snapshot
    .command('list')
    .description('the snapshots of this folder')
    .action(async () => {
      const snapshots = remoteUrl()
        ? (await (await cli.client()).request<{ snapshots: Snapshot[] }>('GET', '/snapshots')).snapshots
        : await inStore((store) => store.list().map(describeSnapshot));
      const lines = snapshots.map(
        (saved) =>
          `  ${saved.name.padEnd(20)} lab ${saved.lab} (${saved.runtime}), height ${saved.height}, ${mib(saved.bytes)}, ${saved.createdAt}`,
      );
      cli.out(snapshots.length === 0 ? 'no snapshots: save one with `reglab snapshot save NAME`' : lines.join('\n'), {
        snapshots,
      });
    });

  snapshot
    .command('rm')
    .description('remove a snapshot')
    .argument('<name>')
    .action(async (name: string) => {
      if (remoteUrl()) await (await cli.client()).request('DELETE', `/snapshots/${encodeURIComponent(name)}`);
      else await inStore((store) => store.remove(name));
      cli.out(`snapshot ${name} removed`, { name, removed: true });
    });

  program
    .command('reset')
    .description('put the lab back to the snapshot it was brought up from (or last saved)')
    .action(async () => {
      const client = await cli.client();
      const lab = await cli.labName(client);
      const started = Date.now();
      const reset = await client.request<{ name: string; snapshot: string; phases: Phase[] }>(
        'POST',
        `/labs/${lab}/reset`,
      );
      cli.out(
        `lab ${lab} reset to snapshot ${reset.snapshot} in ${seconds(Date.now() - started)} (${phases(reset.phases)})`,
        reset,
      );
    });
}
