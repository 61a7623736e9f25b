// The nodes as a table: what the graph shows, with full figures and a pubkey to copy, and the RGB
// assets of rgb and rln nodes.
import { copyButton } from './clipboard.js';
import { el, syncChildren } from './dom.js';
import { closingText, formatAmount, formatSat, shortHex } from './format.js';

function createRow(node) {
  const row = el(
    'tr',
    { dataset: { node: node.name } },
    el(
      'th',
      { scope: 'row' },
      el('span', { class: 'swatch', 'aria-hidden': 'true' }),
      el('span', { class: 'name' }),
      ' ',
      el('span', { class: 'kind' }),
    ),
    el(
      'td',
      { class: 'pubkey' },
      el('code'),
      ' ',
      copyButton(`${node.name}'s pubkey`, () => row.querySelector('.pubkey code').textContent),
    ),
    el('td', { class: 'chain-balance' }),
    el('td', {}, el('span', { class: 'channel-balance' }), el('ul', { class: 'closing' })),
    el('td', { class: 'assets-col' }, el('ul', { class: 'assets' })),
  );
  return row;
}

function updateRow(row, node, color) {
  row.querySelector('.swatch').style.background = color;
  row.querySelector('.name').textContent = node.name;
  row.querySelector('.kind').textContent = node.kind;
  row.querySelector('.pubkey code').textContent = node.pubkey ?? '–';
  row.querySelector('.pubkey .copy').hidden = !node.pubkey;
  row.querySelector('.chain-balance').textContent =
    node.error ?? (node.chainBalanceSat === undefined ? (node.status ?? '–') : formatSat(node.chainBalanceSat));
  row.querySelector('.channel-balance').textContent = node.error ? '–' : formatSat(node.channelBalanceSat);
  row.querySelector('.closing').replaceChildren(...(node.pendingCloses ?? []).map(describeClose));
  row.querySelector('.assets').replaceChildren(...(node.assets ?? []).map(describeHolding));
}

/** One asset a node holds, in its smallest unit as everywhere in the lab; what is on its way shows apart. */
function describeHolding(asset) {
  const name = asset.ticker ?? shortHex(asset.assetId);
  const pending = asset.future - asset.settled;
  const moving = pending === 0 ? '' : ` (${pending > 0 ? '+' : ''}${formatAmount(pending)} pending)`;
  return el(
    'li',
    { title: asset.assetId, dataset: { asset: name, settled: String(asset.settled) } },
    `${formatAmount(asset.settled)} ${name}${moving}`,
  );
}

const describeClose = (close) => el('li', {}, closingText(close));

export function renderNodes(tbody, nodes = [], colors) {
  syncChildren(
    tbody,
    nodes,
    (node) => node.name,
    createRow,
    (row, node) => updateRow(row, node, colors.get(node.name)),
  );
  // the assets column only in a lab with nodes that hold assets
  tbody.closest('table').classList.toggle(
    'has-assets',
    nodes.some((node) => node.assets),
  );
}
