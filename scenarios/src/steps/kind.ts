// What a step kind is: a name, the schema of its arguments, and what it does against a lab.
import type { LabCalls } from './lab-calls.js';
import type { ServiceDirectory } from './services.js';
import type { WalletUsers } from './wallet-users.js';

export interface StepKind<Args = Record<string, unknown>> {
  /** The key of the step in a scenario file, e.g. `mine` or `wallet_server.pay`. */
  name: string;
  /** One line: what the step does (shown by the validator and in docs/scenarios.md). */
  summary: string;
  /** JSON schema of the arguments; checked before the run (values with `${...}` once filled in). */
  args: object;
  /** Rules between arguments a schema says badly; a message per broken rule. */
  check?(args: Args): string[];
  /**
   * Whether a run with these arguments pays: counted, with how it ended and how long it took, in the
   * report's figures (a payment only queued, `wait: false`, is not).
   */
  payment?(args: Args): boolean;
  /** Does the step; its answer is the step's output (what `save` and `expect` read). */
  run(args: Args, context: StepContext): Promise<unknown>;
}

// Each kind has its own argument type; the registry holds them side by side.
// biome-ignore lint/suspicious/noExplicitAny: a registry of kinds whose argument types differ
export type AnyStepKind = StepKind<any>;

export interface StepContext {
  /** The control plane, about this lab. */
  lab: LabCalls;
  /** The lab's services, reached as their users reach them. */
  services: ServiceDirectory;
  /** Wallet-server users this run signed in, by name. */
  users: WalletUsers;
  /** Notes a fault this step caused on purpose, so a later failure can name it. */
  recordFault(fault: { action: string; target: string }): void;
  /** The loopback address a simulated client machine sends from (each name its own, per run). */
  clientAddress(client?: string): string;
  /** Aborted when the step times out. */
  signal: AbortSignal;
}
