// A kubernetes lab's service data: its claim, as a tar archive of /data. Its service's pod is gone
// while a snapshot reads or writes it (stopped for a save, ended for a reset), so a pod of the
// service's own image holds the claim meanwhile (KubernetesRuntime.withDataPod) and tar runs there,
// its archive streamed through the API server. A restore empties the claim first: what the archive
// does not hold is not left behind.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { LabState, ServiceState } from '../lab/state.js';
import { kindDefinition } from '../nodes/registry.js';
import { discardSignalOf } from '../nodes/types.js';
import { CONTAINER_DATA_DIR } from '../runtimes/container-placement.js';
import type { ExecResult } from '../runtimes/kubernetes/exec.js';
import type { KubernetesRuntime } from '../runtimes/kubernetes/runtime.js';
import type { ServiceData } from './service-data.js';

const archiveOf = (snapshotDir: string, service: string) => join(snapshotDir, 'volumes', `${service}.tar`);
const hasData = (service: ServiceState) => !kindDefinition(service.kind).stateless;

function succeeded(result: ExecResult, what: string): void {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}): ${result.stderr.trim()}`);
}

export function kubernetesData(runtime: KubernetesRuntime): ServiceData {
  return {
    async save(lab: LabState, service: ServiceState, snapshotDir: string): Promise<number> {
      if (!hasData(service)) return 0;
      const file = archiveOf(snapshotDir, service.name);
      await mkdir(join(snapshotDir, 'volumes'), { recursive: true });
      await runtime.withDataPod(lab.name, service.name, service.kind, async (pod) => {
        const out = createWriteStream(file, { mode: 0o600 });
        const result = await runtime.execInDataPod(
          pod,
          ['tar', '-c', '--numeric-owner', '-C', CONTAINER_DATA_DIR, '.'],
          {
            stdout: out,
          },
        );
        await finished(out);
        succeeded(result, `copying ${service.name}'s data`);
      });
      return (await stat(file)).size;
    },
    /** The pod is ended (deleted) now, its claim kept for the data written back. */
    async hold(_lab, service) {
      if (!service.handle) return false;
      await runtime.end(service.handle, discardSignalOf(kindDefinition(service.kind)));
      return true;
    },
    async restore(lab: LabState, service: ServiceState, snapshotDir: string): Promise<void> {
      if (!hasData(service)) return;
      const archive = archiveOf(snapshotDir, service.name);
      await runtime.withDataPod(lab.name, service.name, service.kind, async (pod) => {
        const result = await runtime.execInDataPod(
          pod,
          [
            '/bin/sh',
            '-c',
            `find ${CONTAINER_DATA_DIR} -mindepth 1 -delete && tar -x --numeric-owner --same-permissions -C ${CONTAINER_DATA_DIR}`,
          ],
          { stdin: createReadStream(archive) },
        );
        succeeded(result, `writing ${service.name}'s data back`);
      });
    },
  };
}
