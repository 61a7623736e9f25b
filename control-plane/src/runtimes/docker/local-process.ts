import { readFile } from 'node:fs/promises';

/**
 * Whether process `pid` of this machine runs in container `containerId` (its cgroup names the
 * container: Podman's libpod-ID, Docker's docker-ID or /docker/ID). False for a container of an
 * engine on another machine or in a VM, whose processes this machine does not see.
 */
export async function runsInContainer(pid: number, containerId: string): Promise<boolean> {
  const cgroup = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
  return cgroup.includes(containerId);
}
