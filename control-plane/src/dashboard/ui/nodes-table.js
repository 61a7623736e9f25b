// The nodes as a table: what the graph shows, with full figures and a pubkey to copy.
import { copyButton } from './clipboard.js';
import { el, syncChildren } from './dom.js';
import { formatSat, plural } from './format.js';

function createRow(node) {
  const row = el(
    'tr',
    { dataset: { node: node.name } },
    el('th', { scope: 'row' }, el('span', { class: 'swatch', 'aria-hidden': 'true' }), el('span', { class: 'name' }), ' ', el('span', { class: 'kind' })),
    el('td', { class: 'pubkey' }, el('code'), ' ', copyButton(`${node.name}'s pubkey`, () => row.querySelector('.pubkey code').textContent)),
    el('td', { class: 'chain-balance' }),
    el('td', {}, el('span', { class: 'channel-balance' }), el('ul', { class: 'closing' })),
  );
  return row;
}

function updateRow(row, node, color) {
  row.querySelector('.swatch').style.background = color;
  row.querySelector('.name').textContent = node.name;
  row.querySelector('.kind').textContent = node.kind;
  row.querySelector('.pubkey code').textContent = node.pubkey ?? '–';
  row.querySelector('.pubkey .copy').hidden = !node.pubkey;
  row.querySelector('.chain-balance').textContent = node.error ?? (node.chainBalanceSat === undefined ? node.status ?? '–' : formatSat(node.chainBalanceSat));
  row.querySelector('.channel-balance').textContent = node.error ? '–' : formatSat(node.channelBalanceSat);
  row.querySelector('.closing').replaceChildren(...(node.pendingCloses ?? []).map(describeClose));
}

/** A channel being closed: its funds are on their way back on-chain. */
function describeClose(close) {
  const wait = close.blocksUntilSweep ? `, spendable in ${plural(close.blocksUntilSweep, 'block')}` : '';
  return el('li', {}, `closing: ${formatSat(close.pendingSat)}${wait}`);
}

export function renderNodes(tbody, nodes = [], colors) {
  syncChildren(tbody, nodes, (node) => node.name, createRow, (row, node) => updateRow(row, node, colors.get(node.name)));
}
