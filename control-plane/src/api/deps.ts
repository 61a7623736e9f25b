import type { ControlPlaneRestart } from '../home.js';
import type { JobQueues } from '../jobs.js';
import type { LabManager } from '../manager.js';

/** What the API's routes work with. */
export interface ApiDeps {
  manager: LabManager;
  jobs: JobQueues;
  /** Set when its keeper started this control plane again. */
  restarted?: ControlPlaneRestart;
  /** When the reglab this control plane runs was built (home.ts, builtAt), and when the one installed now was. */
  builds?: Builds;
}

export interface Builds {
  running?: string;
  installed(): string | undefined;
}
