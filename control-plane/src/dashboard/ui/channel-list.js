// The channels as a list: each with its capacity and a bar of the two balances, in figures too.
import { el, syncChildren } from './dom.js';
import { formatSat, shortHex } from './format.js';

const EXTERNAL_COLOR = '#9aa1ab';

function createItem() {
  return el(
    'li',
    { class: 'channel-item' },
    el('div', { class: 'channel-head' }, el('strong', { class: 'pair' }), el('span', { class: 'capacity' })),
    el(
      'div',
      { class: 'bar', 'aria-hidden': 'true' },
      el('span', { class: 'bar-local' }),
      el('span', { class: 'bar-remote' }),
    ),
    el('div', { class: 'channel-sides' }, el('span', { class: 'side-local' }), el('span', { class: 'side-remote' })),
  );
}

function updateItem(item, channel, colors) {
  const to = channel.external ? shortHex(channel.to) : channel.to;
  const localShare = channel.capacitySat > 0 ? (100 * channel.localSat) / channel.capacitySat : 0;
  Object.assign(item.dataset, {
    from: channel.from,
    to: channel.to,
    localSat: String(channel.localSat),
    remoteSat: String(channel.remoteSat),
    active: String(channel.active),
  });
  item.querySelector('.pair').textContent = `${channel.from} ⟷ ${to}`;
  item.querySelector('.capacity').textContent =
    `${formatSat(channel.capacitySat)}${channel.active ? '' : ' · inactive'}`;
  const local = item.querySelector('.bar-local');
  local.style.width = `${localShare}%`;
  local.style.background = colors.get(channel.from);
  item.querySelector('.bar-remote').style.background = colors.get(channel.to) ?? EXTERNAL_COLOR;
  item.querySelector('.side-local').textContent = `${channel.from} ${formatSat(channel.localSat)}`;
  item.querySelector('.side-remote').textContent = `${to} ${formatSat(channel.remoteSat)}`;
}

export function renderChannels(list, channels, colors) {
  syncChildren(
    list,
    channels,
    (channel) => channel.key,
    createItem,
    (item, channel) => updateItem(item, channel, colors),
  );
  if (channels.length === 0) list.replaceChildren(el('li', { class: 'empty' }, 'No channels yet.'));
}
