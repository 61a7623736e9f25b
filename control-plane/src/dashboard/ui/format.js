// How amounts and keys are shown.

const grouped = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });

/** 1234567 -> "1,234,567 sat"; an unknown amount -> "–". */
export const formatSat = (sat) => (typeof sat === 'number' ? `${grouped.format(sat)} sat` : '–');

/** 1234567 -> "1,234,567": an asset amount, in its smallest unit. */
export const formatAmount = (amount) => grouped.format(amount);

/** 4990000 -> "4.99M": for the graph, where space is short. */
export const compactSat = (sat) => (typeof sat === 'number' ? compact.format(sat) : '–');

/** The start and end of a long key or txid. */
export const shortHex = (hex) => (hex ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : '–');

export const plural = (count, one, many = `${one}s`) => `${grouped.format(count)} ${count === 1 ? one : many}`;

/**
 * A channel being closed: its funds on their way back on-chain, timelocked for N more blocks or,
 * matured, being swept, or overdue for their sweep (docs/lab-yaml.md: lnd issue #10938).
 */
export function closingText(close) {
  const wait =
    close.blocksUntilSweep === undefined
      ? ''
      : close.blocksUntilSweep > 0
        ? `, spendable in ${plural(close.blocksUntilSweep, 'block')}`
        : close.sweepOverdue
          ? ', matured but not swept: restart the node to sweep it'
          : ', sweeping';
  return `closing: ${formatSat(close.pendingSat)}${wait}`;
}

/**
 * A lab URL as this browser reaches it: the lab names its services on 127.0.0.1; a browser in the
 * room (the page opened on the lab machine's address) reaches them on that address.
 */
export function reachable(url) {
  const here = window.location.hostname;
  if (here === '127.0.0.1' || here === 'localhost' || here === '[::1]') return url;
  return url.replace(/^(\w+:\/\/)127\.0\.0\.1(?=[:/]|$)/, `$1${here}`);
}
