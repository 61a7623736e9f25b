// What the commands kept in modules of their own get from the CLI's entry point (main.ts).
import type { ControlPlaneClient } from './client.js';

export interface CliContext {
  /** The control plane of this folder, or an error saying none runs. */
  client(): Promise<ControlPlaneClient>;
  /** The lab to act on: --lab, or the only one up. */
  labName(client: ControlPlaneClient): Promise<string>;
  /** Prints the human text, or the machine answer with --json. */
  out(human: string, machine: unknown): void;
}
