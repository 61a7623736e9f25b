import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeBinary } from '../../home.js';
import { initPostgresCluster, postgresBinDir } from '../../nodes/postgres/server.js';
import { redisServerBinary } from '../../nodes/redis/server.js';
import { programArguments } from '../../../../lib/programs.js';
import type {
  ExitStatus,
  LabHandleInfo,
  LaunchSpec,
  Runtime,
  RuntimeHandle,
  ServiceLocation,
  StartRequest,
} from '../types.js';
import {
  exitStatusOf,
  isRunning,
  killProcessGroup,
  startDetached,
  stopProcessGroup,
  type ProcessLaunch,
} from './child.js';
import { serviceDataDir, serviceLogFile } from './placement.js';

/** Runs each service as a local child process group, with its data and logs in the lab folder. */
export class ProcessRuntime implements Runtime {
  readonly name = 'process' as const;

  async prepareLab(lab: LabHandleInfo): Promise<void> {
    mkdirSync(join(lab.dir, 'services'), { recursive: true });
    mkdirSync(join(lab.dir, 'logs'), { recursive: true });
  }

  async start(request: StartRequest): Promise<RuntimeHandle> {
    const dataDir = serviceDataDir(request.lab.dir, request.service);
    mkdirSync(dataDir, { recursive: true });
    if (request.launch.program.type === 'system' && request.launch.program.name === 'postgres') {
      await initPostgresCluster(join(dataDir, 'data'));
    }
    const pid = startDetached(
      toProcessLaunch(request.launch, dataDir),
      serviceLogFile(request.lab.dir, request.service),
    );
    return { runtime: 'process', pid };
  }

  async stop(handle: RuntimeHandle, stopSignal?: NodeJS.Signals): Promise<void> {
    await stopProcessGroup(pidOf(handle), 15_000, stopSignal);
  }

  async kill(handle: RuntimeHandle): Promise<void> {
    await killProcessGroup(pidOf(handle));
  }

  async isAlive(handle: RuntimeHandle): Promise<boolean> {
    return isRunning(pidOf(handle));
  }

  /** Known for the processes this control plane started; a re-attached one's end is not. */
  async exitStatus(handle: RuntimeHandle): Promise<ExitStatus | undefined> {
    return exitStatusOf(pidOf(handle));
  }

  readServiceFile(location: ServiceLocation, relativePath: string): Promise<Buffer> {
    return readFile(join(serviceDataDir(location.lab.dir, location.service), relativePath));
  }

  async logs(location: ServiceLocation, _handle: RuntimeHandle | undefined, lines: number): Promise<string> {
    const file = serviceLogFile(location.lab.dir, location.service);
    if (!existsSync(file)) return '';
    const text = await readFile(file, 'utf8');
    return text
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
  }

  async removeLab(): Promise<string[]> {
    // the lab folder itself is removed by the lab manager, which owns it
    return [];
  }
}

function pidOf(handle: RuntimeHandle): number {
  if (handle.runtime !== 'process') throw new Error(`the process runtime cannot handle a ${handle.runtime} handle`);
  return handle.pid;
}

function toProcessLaunch(launch: LaunchSpec, cwd: string): ProcessLaunch {
  const base = { args: launch.args, env: launch.env, cwd, user: launch.user, stopSignal: launch.stopSignal };
  const program = launch.program;
  switch (program.type) {
    case 'node-binary': {
      const binary = nodeBinary(program.name);
      if (!existsSync(binary))
        throw new Error(`${binary} is missing: build the node binaries with \`bash scripts/build-nodes.sh\``);
      return { ...base, command: binary };
    }
    case 'system':
      return {
        ...base,
        command: program.name === 'postgres' ? join(postgresBinDir(), 'postgres') : redisServerBinary(),
      };
    case 'service':
      return {
        ...base,
        command: process.execPath,
        args: [...program.nodeFlags, ...programArguments(program.entry), ...launch.args],
      };
    case 'image':
      throw new Error(`${program.name} runs only in the docker runtime, from its container image`);
  }
}
