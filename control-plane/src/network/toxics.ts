// A link's fault as Toxiproxy toxics, and the calls that bring one proxy to it.
import type { LinkFault } from './model.js';
import type { ProxyView, Toxic, ToxicStream, ToxiproxyApi } from './toxiproxy-api.js';

const BOTH_WAYS: ToxicStream[] = ['upstream', 'downstream'];

/** A toxic acting on every connection, in each direction: named by its type and direction. */
const bothWays = (type: Toxic['type'], attributes: Record<string, number>): Toxic[] =>
  BOTH_WAYS.map((stream) => ({ name: `${type}_${stream}`, type, stream, toxicity: 1, attributes }));

/**
 * The toxics of a fault, on each proxy of the link: the delay and the rate limit act both ways; a
 * reset acts on what the dialling side sends (a reset ends the connection both ways), so that its
 * chance is drawn once per connection.
 */
export function toxicsFor(fault: LinkFault | undefined): Toxic[] {
  const toxics: Toxic[] = [];
  if (fault?.latencyMs) toxics.push(...bothWays('latency', { latency: fault.latencyMs, jitter: fault.jitterMs ?? 0 }));
  if (fault?.bandwidthKBps) toxics.push(...bothWays('bandwidth', { rate: fault.bandwidthKBps }));
  if (fault?.resetProbability)
    toxics.push({
      name: 'reset',
      type: 'reset_peer',
      stream: 'upstream',
      toxicity: fault.resetProbability,
      attributes: { timeout: 0 },
    });
  return toxics;
}

const sameToxic = (a: Toxic, b: Toxic) =>
  a.type === b.type &&
  a.stream === b.stream &&
  a.toxicity === b.toxicity &&
  JSON.stringify(Object.entries(a.attributes).sort()) === JSON.stringify(Object.entries(b.attributes).sort());

/** Brings one proxy to `fault`: enabled unless partitioned, with exactly the fault's toxics. */
export async function applyFault(api: ToxiproxyApi, proxy: ProxyView, fault: LinkFault | undefined): Promise<void> {
  const wanted = toxicsFor(fault);
  for (const toxic of proxy.toxics)
    if (!wanted.some((candidate) => candidate.name === toxic.name && candidate.type === toxic.type))
      await api.removeToxic(proxy.name, toxic.name);
  for (const toxic of wanted) {
    const existing = proxy.toxics.find((candidate) => candidate.name === toxic.name && candidate.type === toxic.type);
    if (!existing) await api.addToxic(proxy.name, toxic);
    else if (!sameToxic(existing, toxic)) await api.updateToxic(proxy.name, toxic);
  }
  const enabled = !fault?.partitioned;
  if (proxy.enabled !== enabled) await api.setEnabled(proxy.name, enabled);
}
