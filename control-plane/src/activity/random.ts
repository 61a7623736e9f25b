// A seeded source of random numbers and the draws the activity generator makes from it. The same
// seed gives the same draws on every machine and Node version (Math.random cannot be seeded).

/** Numbers in [0, 1) from a 32-bit seed: mulberry32, small and good enough for traffic, not for keys. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An index of `weights`, each as likely as its weight (every weight > 0). */
export function weightedIndex(random: () => number, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let point = random() * total;
  for (let index = 0; index < weights.length; index++) {
    point -= weights[index];
    if (point < 0) return index;
  }
  return weights.length - 1;
}

/** The wait until the next event of a Poisson process of `ratePerSecond`, in ms. */
export function exponentialDelayMs(random: () => number, ratePerSecond: number): number {
  return Math.round((-Math.log(1 - random()) / ratePerSecond) * 1000);
}

/** A standard normal draw (Box-Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A log-normal draw whose mean is `mean`, its spread `sigma` (0: always the mean). */
export function logNormal(random: () => number, mean: number, sigma: number): number {
  return mean * Math.exp(sigma * normal(random) - (sigma * sigma) / 2);
}
