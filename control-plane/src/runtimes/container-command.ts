import { bundleOf } from '../../../lib/programs.js';
import type { LaunchSpec } from './types.js';

/** Where the project's compiled services live in the services image. */
const SERVICES_APP_DIR = '/app';

/**
 * What follows the image's entry point in a container (docker or kubernetes): the launch's
 * arguments; for a project service (the image's entry point is Node), its bundle (or compiled
 * file) under /app/dist first, after Node's own flags.
 */
export function commandAfterEntrypoint(launch: LaunchSpec): string[] {
  if (launch.program.type === 'service')
    return [
      ...launch.program.nodeFlags,
      `${SERVICES_APP_DIR}/dist/${bundleOf(launch.program.entry) ?? launch.program.entry}`,
      ...launch.args,
    ];
  return launch.args;
}
