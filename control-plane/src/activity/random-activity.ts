// Random payments between the lab's Lightning nodes, as sim-ln makes them: each node sends in
// proportion to its channel capacity, to a destination picked in proportion to its capacity, amounts
// spread around an expected amount. One seeded stream of decisions, independent of how payments
// turn out, so that a seed replays the same (from, to, amount, delay) sequence on the same lab.
import { exponentialDelayMs, logNormal, seededRandom, weightedIndex } from './random.js';

export interface ActivityNode {
  name: string;
  /** The sum of the capacities of its channels. */
  capacitySat: number;
}

export interface RandomSettings {
  seed: number;
  /** The mean amount of a payment. */
  expectedAmountSat: number;
  /** sim-ln's capacity multiplier: how many times its capacity a node sends per window. */
  capacityMultiplier: number;
}

export interface PaymentDecision {
  /** Its place in the sequence, from 1. */
  seq: number;
  from: string;
  to: string;
  amountSat: number;
  /** The wait after the previous decision. */
  delayMs: number;
}

/**
 * sim-ln spreads a node's capacity × multiplier over a month of payments; a lab has minutes, so
 * the lab's window is an hour: the default lab then sends a few payments a second.
 */
export const WINDOW_SECONDS = 3600;
/** The spread of the log-normal amounts. */
const AMOUNT_SIGMA = 0.5;

export class RandomActivity {
  private readonly nodes: ActivityNode[];
  private readonly random: () => number;
  private readonly ratePerSecond: number;
  private seq = 0;

  constructor(
    nodes: readonly ActivityNode[],
    private readonly settings: RandomSettings,
  ) {
    // sorted, so that the order the nodes were listed in does not change the sequence
    this.nodes = nodes.filter((node) => node.capacitySat > 0).sort((a, b) => a.name.localeCompare(b.name));
    if (this.nodes.length < 2)
      throw new Error(
        `random activity needs two Lightning nodes with channels (found ${this.nodes.map((node) => node.name).join(', ') || 'none'})`,
      );
    this.random = seededRandom(settings.seed);
    const totalCapacity = this.nodes.reduce((sum, node) => sum + node.capacitySat, 0);
    this.ratePerSecond = (totalCapacity * settings.capacityMultiplier) / settings.expectedAmountSat / WINDOW_SECONDS;
  }

  /** Payments a second the lab is asked for, all sources together. */
  get rate(): number {
    return this.ratePerSecond;
  }

  next(): PaymentDecision {
    const delayMs = exponentialDelayMs(this.random, this.ratePerSecond);
    const weights = this.nodes.map((node) => node.capacitySat);
    const source = weightedIndex(this.random, weights);
    const others = this.nodes.filter((_, index) => index !== source);
    const destination =
      others[
        weightedIndex(
          this.random,
          others.map((node) => node.capacitySat),
        )
      ];
    const largest = Math.max(1, Math.floor(Math.min(this.nodes[source].capacitySat, destination.capacitySat) / 2));
    const amountSat = Math.min(
      largest,
      Math.max(1, Math.round(logNormal(this.random, this.settings.expectedAmountSat, AMOUNT_SIGMA))),
    );
    this.seq += 1;
    return { seq: this.seq, from: this.nodes[source].name, to: destination.name, amountSat, delayMs };
  }
}
