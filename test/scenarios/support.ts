// A real lab for the scenario integration tests: a control plane started in this process on a
// temporary REGLAB_HOME, with a lab posted to it and awaited; everything is torn down by stop(),
// also when the set-up fails halfway.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneClient } from '../../control-plane/src/cli/client.js';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/src/daemon.js';
import { waitFor } from '../../lib/wait.js';

export interface RunningLab {
  home: string;
  name: string;
  client: ControlPlaneClient;
  stop(): Promise<void>;
}

export async function startLab(name: string, yaml: string): Promise<RunningLab> {
  const home = mkdtempSync(join(tmpdir(), 'reglab-scenarios-'));
  chmodSync(home, 0o755);
  let plane: RunningControlPlane | undefined;
  const stop = async () => {
    if (plane) {
      await plane.manager.remove(name, { volumes: true }).catch(() => undefined);
      await plane.stop();
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    plane = await startControlPlane({ home });
    const client = new ControlPlaneClient(plane.url);
    await client.request('POST', '/labs', { yaml });
    await waitFor(
      async () => {
        const lab = await client.request<{ status: string; error?: string }>('GET', `/labs/${name}`);
        if (lab.status === 'failed') throw new Error(`lab ${name} failed to come up: ${lab.error}`);
        return lab.status === 'ready';
      },
      {
        timeoutMs: 240_000,
        what: `lab ${name} to be ready`,
        stopOn: (error) => String(error).includes('failed to come up'),
      },
    );
    return { home, name, client, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Failed steps as "id label: error", so a failing test shows why. */
export function failuresOf(report: {
  steps: { id: string; label: string; status: string; error?: string; steps?: unknown[] }[];
}): string[] {
  return report.steps
    .filter((step) => step.status === 'failed')
    .map((step) => `${step.id} ${step.label}: ${step.error}`);
}
