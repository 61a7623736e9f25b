// Network faults on a running lab (`reglab net …`): a delay, a rate limit, resets now and then, or
// a partition, set on the links between two services or on every link of one; and the heal that
// takes them off. Each change is made in Toxiproxy first, then kept in the lab's state (what a
// restarted Toxiproxy is given back) and announced as a `network` event.
import { conflict, invalid, notFound } from '../../../lib/errors.js';
import type { LabEventListener, NetworkChange } from '../lab/events.js';
import { requireReady } from '../lab/operations.js';
import type { LabSession } from '../lab/session.js';
import { isLightning } from '../nodes/node.js';
import { dialChannelPartners } from '../nodes/reconnect.js';
import {
  endsOf,
  type LinkFault,
  type LinkSummary,
  linkPairs,
  linkSummary,
  linksOf,
  NETWORK_SERVICE,
  type NetworkState,
  networkSummary,
  neighboursOf,
  pairOf,
  pairOfLink,
  peersOf,
  RESET_DRAW_MS,
} from './model.js';
import { networkApi } from './sync.js';
import { applyFault, toxicsFor } from './toxics.js';
import type { ProxyView } from './toxiproxy-api.js';

/** A pair with its proxies as Toxiproxy reports them now: what `reglab net status` shows. */
interface LinkStatus extends LinkSummary {
  proxies: (ProxyView & { from: string; to: string; port: string })[];
}

export class LabNetwork {
  /** One change at a time: each reads what Toxiproxy holds after the last. */
  private queue: Promise<unknown> = Promise.resolve();
  private resetDraws?: NodeJS.Timeout;

  constructor(
    private readonly session: LabSession,
    private readonly persist: () => Promise<void>,
    private readonly onEvent: LabEventListener,
  ) {}

  /** The lab's network state, or the error saying the lab was brought up without network faults. */
  private get network(): NetworkState {
    const network = this.session.lab.network;
    if (!network)
      throw conflict(
        'NETWORK_FAULTS_OFF',
        `lab ${this.session.lab.name} runs without network faults (its links go straight from node to node): add \`network: { faults: true }\` to its lab.yaml and bring it up again (\`reglab down\`, then \`reglab up\`); see docs/network-faults.md`,
      );
    return network;
  }

  /** Every pair of the lab with its fault and its proxies as Toxiproxy has them. */
  async status(): Promise<{ faults: boolean; links: LinkStatus[]; cutOff: string[] }> {
    const network = this.session.lab.network;
    if (!network) return { faults: false, links: [], cutOff: [] };
    requireReady(this.session, NETWORK_SERVICE);
    const proxies = await networkApi(this.session).proxies();
    return {
      faults: true,
      links: linkPairs(network.links).map((pair) => ({
        ...linkSummary(network, pair),
        proxies: linksOf(network.links, ...endsOf(pair)).map((link) => ({
          ...proxies[link.name],
          from: link.from,
          to: link.to,
          port: link.port,
        })),
      })),
      cutOff: networkSummary(network).cutOff,
    };
  }

  /** A delay on the links between `a` and `b`, each way (0 takes it off), varying by up to `jitterMs`. */
  delay(a: string, b: string, latencyMs: number, jitterMs = 0): Promise<LinkSummary[]> {
    if (jitterMs > latencyMs)
      throw invalid(
        'INVALID_JITTER',
        `a jitter of ${jitterMs} ms is more than the delay of ${latencyMs} ms it varies: at most the delay`,
      );
    return this.change('delay', [a, b], (fault) => ({
      ...fault,
      latencyMs: latencyMs || undefined,
      jitterMs: (latencyMs && jitterMs) || undefined,
    }));
  }

  /** At most `kBps` KB/s each way on the links between `a` and `b` (0 takes the limit off). */
  bandwidth(a: string, b: string, kBps: number): Promise<LinkSummary[]> {
    return this.change('bandwidth', [a, b], (fault) => ({ ...fault, bandwidthKBps: kBps || undefined }));
  }

  /** Resets now and then on the links between `a` and `b`: `probability` per connection every RESET_DRAW_MS. */
  loss(a: string, b: string, probability: number): Promise<LinkSummary[]> {
    return this.change('loss', [a, b], (fault) => ({ ...fault, resetProbability: probability || undefined }));
  }

  /**
   * Cuts the links between `a` and `b`, or those of `a` with every other node (its peers): the node
   * cut off from the others, still following the chain. Its chain link is cut only when named
   * (`partition alice chain`): lnd's calls that need the chain then wait until it is back.
   */
  partition(a: string, b?: string): Promise<LinkSummary[]> {
    return this.change('partition', b === undefined ? [a] : [a, b], (fault) => ({ ...fault, partitioned: true }));
  }

  /** Takes every fault off the links between `a` and `b`, those of `a`, or all of them. */
  heal(a?: string, b?: string): Promise<LinkSummary[]> {
    const ends = a === undefined ? [] : b === undefined ? [a] : [a, b];
    return this.change('heal', ends, () => undefined);
  }

  private change(
    action: NetworkChange,
    ends: string[],
    update: (fault: LinkFault | undefined) => LinkFault | undefined,
  ): Promise<LinkSummary[]> {
    const done = this.queue.then(() => this.changeNow(action, ends, update));
    this.queue = done.catch(() => undefined);
    return done;
  }

  private async changeNow(
    action: NetworkChange,
    ends: string[],
    update: (fault: LinkFault | undefined) => LinkFault | undefined,
  ): Promise<LinkSummary[]> {
    const network = this.network;
    const pairs = this.pairsOf(network, ends, action);
    requireReady(this.session, NETWORK_SERVICE);
    const faults = { ...network.faults };
    for (const pair of pairs) {
      const next = compact(update(faults[pair]));
      if (next) faults[pair] = next;
      else delete faults[pair];
    }
    const api = networkApi(this.session);
    const proxies = await api.proxies();
    for (const link of network.links.filter((candidate) => pairs.includes(pairOfLink(candidate))))
      await applyFault(api, proxyOf(proxies, link.name), faults[pairOfLink(link)]);
    const healed = pairs.filter((pair) => breaks(network.faults[pair]) && !breaks(faults[pair]));
    network.faults = faults;
    await this.persist();
    const changed = pairs.map((pair) => linkSummary(network, pair));
    this.onEvent({
      type: 'network',
      lab: this.session.lab.name,
      action,
      target: ends.length === 0 ? 'every link' : ends.join(' ↔ '),
      links: changed,
    });
    this.redialAcross(healed);
    this.drawResets();
    return changed;
  }

  /**
   * The pairs a command names: those of `a` and `b`; `a` with each of its peers (a heal: with all
   * it has links to); or, with none named, for a heal, every pair with a fault. Refused when a name
   * has no links, or the two have none together.
   */
  private pairsOf(network: NetworkState, ends: string[], action: NetworkChange): string[] {
    const [a, b] = ends;
    if (a === undefined) return action === 'heal' ? Object.keys(network.faults) : [];
    const linked = [...new Set(network.links.flatMap((link) => [link.from, link.to]))].sort();
    for (const end of ends)
      if (!linked.includes(end))
        throw notFound(
          `lab ${this.session.lab.name} has no node or service "${end}" with links (those with links: ${linked.join(', ')})`,
          'NO_SUCH_NODE',
        );
    if (b === undefined) {
      const others = action === 'heal' ? neighboursOf(network.links, a) : peersOf(network.links, a);
      if (others.length === 0)
        throw invalid(
          'NO_PEER_LINKS',
          `${a} has no links with other nodes to cut: name the link (\`reglab net partition ${a} ${neighboursOf(network.links, a)[0]}\`)`,
        );
      return others.map((other) => pairOf(a, other));
    }
    if (a === b) throw invalid('SAME_NODE', `a link joins two different services, not ${a} with itself`);
    if (linksOf(network.links, a, b).length === 0)
      throw notFound(
        `there is no link between ${a} and ${b}: the links of ${a} reach ${neighboursOf(network.links, a).join(', ')}`,
        'NO_SUCH_LINK',
      );
    return [pairOf(a, b)];
  }

  /**
   * The Lightning nodes of pairs whose connections are no longer cut or reset dial their channel
   * partners at once, rather than after their own back-off, which grew meanwhile.
   */
  private redialAcross(pairs: string[]): void {
    const nodes = new Set(pairs.flatMap(endsOf));
    for (const node of nodes) {
      if (this.session.lab.services[node]?.status !== 'ready') continue;
      if (!this.session.lab.spec.nodes.some((spec) => spec.name === node)) continue;
      if (!isLightning(this.session.node(node))) continue;
      void dialChannelPartners(this.session, node).catch(() => undefined);
    }
  }

  /**
   * While a link has resets (`loss`), each of its connections draws again, every RESET_DRAW_MS,
   * whether the reset acts on it: Toxiproxy draws a toxic's chance when a connection starts and
   * when the toxic is changed, so a long-lived connection would otherwise be reset at most once.
   */
  drawResets(): void {
    const lossy = () =>
      Object.entries(this.session.lab.network?.faults ?? {}).filter(([, fault]) => fault.resetProbability);
    if (lossy().length === 0) {
      clearInterval(this.resetDraws);
      this.resetDraws = undefined;
      return;
    }
    this.resetDraws ??= setInterval(() => {
      const network = this.session.lab.network;
      if (!network || this.session.lab.services[NETWORK_SERVICE]?.status !== 'ready') return;
      const api = networkApi(this.session);
      for (const [pair, fault] of lossy())
        for (const link of linksOf(network.links, ...endsOf(pair)))
          for (const toxic of toxicsFor(fault).filter((candidate) => candidate.type === 'reset_peer'))
            void api.updateToxic(link.name, toxic).catch(() => undefined);
    }, RESET_DRAW_MS);
    this.resetDraws.unref();
  }

  stop(): void {
    clearInterval(this.resetDraws);
    this.resetDraws = undefined;
  }
}

/** Whether a fault ends connections: a partition, or resets. */
const breaks = (fault: LinkFault | undefined) => Boolean(fault?.partitioned || fault?.resetProbability);

/** A fault with nothing set is no fault. */
function compact(fault: LinkFault | undefined): LinkFault | undefined {
  if (!fault) return undefined;
  const set = Object.entries(fault).filter(([, value]) => value !== undefined && value !== false);
  return set.length > 0 ? (Object.fromEntries(set) as LinkFault) : undefined;
}

function proxyOf(proxies: Record<string, ProxyView>, name: string): ProxyView {
  const proxy = proxies[name];
  if (!proxy)
    throw new Error(`Toxiproxy has no proxy "${name}": it was restarted without its links (reglab restart toxiproxy)`);
  return proxy;
}
