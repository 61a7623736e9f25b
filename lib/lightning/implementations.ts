// The Lightning implementations reglab speaks to, one folder of lib/lightning each: the one place
// that names them. The wallet server's NODE_KIND and the control plane's Lightning kinds come from
// this list; adding an implementation is its folder and a line here.
import type { ClientOptions, LightningClient, LightningImplementationModule } from './client.js';
import { ldk } from './ldk/index.js';
import { lnd } from './lnd/index.js';
import { rln } from './rln/index.js';

const IMPLEMENTATIONS = { lnd, ldk, rln };

export type LightningImplementation = keyof typeof IMPLEMENTATIONS;
export const LIGHTNING_IMPLEMENTATIONS = Object.keys(IMPLEMENTATIONS) as LightningImplementation[];

/** What `implementation` connects with (lnd: gRPC address and credentials; LDK, RLN: their API's URL). */
export type ConnectionOf<I extends LightningImplementation> = Parameters<(typeof IMPLEMENTATIONS)[I]['connect']>[0];

const moduleOf = <I extends LightningImplementation>(implementation: I) =>
  IMPLEMENTATIONS[implementation] as LightningImplementationModule<ConnectionOf<I>>;

export function lightningClient<I extends LightningImplementation>(
  implementation: I,
  connection: ConnectionOf<I>,
  options?: ClientOptions,
): LightningClient {
  return moduleOf(implementation).connect(connection, options);
}

/** What a lab service is given to reach a node: NODE_KIND and the variables of its connection. */
export function lightningEnv<I extends LightningImplementation>(
  implementation: I,
  connection: ConnectionOf<I>,
): Record<string, string> {
  return { NODE_KIND: implementation, ...moduleOf(implementation).connectionToEnv(connection) };
}

const isImplementation = (name: string): name is LightningImplementation => Object.hasOwn(IMPLEMENTATIONS, name);

/** The client of the node `env` names: NODE_KIND (lnd when unset) and the variables of its connection. */
export async function lightningClientFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options?: ClientOptions,
): Promise<LightningClient> {
  const implementation = env.NODE_KIND ?? 'lnd';
  if (!isImplementation(implementation)) {
    const names = LIGHTNING_IMPLEMENTATIONS.join(', ').replace(/, (\w+)$/, ' or $1');
    throw new Error(`NODE_KIND must be ${names}, got "${implementation}"`);
  }
  const module = moduleOf(implementation);
  return module.connect(await module.connectionFromEnv(env), options);
}
