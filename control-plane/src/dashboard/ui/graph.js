// The lab drawn as a graph (SVG): the chain, the Lightning nodes in a row (a column on a narrow
// screen), and each channel as a bar between its two nodes, split where one node's balance ends.
// A link with a network fault (`reglab net`) is drawn over in red dashes, with the fault in words;
// a node cut off from the lab says so on its card.
//
// The layout is worked out along the row ("along") and across it ("across"), then turned into
// x/y by the orientation: a row is along = x, a column along = y.
import { svgEl } from './dom.js';
import { compactSat, shortHex } from './format.js';
import { linkFaults, pairKey, serviceStatuses } from './model.js';

const ROW = { card: { width: 220, height: 124 }, gap: 150, margin: 16, top: 120 };
const COLUMN = { card: { width: 230, height: 124 }, gap: 112, margin: 12, top: 96 };
const CHAIN = { width: 240, height: 58, y: 12 };
const BAR_WIDTH = 12;
const DASH_SCALE = 1000;

function layoutFor(vertical, nodeCount) {
  const shape = vertical ? COLUMN : ROW;
  const along = vertical ? shape.card.height : shape.card.width;
  const across = vertical ? shape.card.width : shape.card.height;
  const start = (index) => index * (along + shape.gap);
  // (along, across) -> screen coordinates
  const point = (a, c) =>
    vertical ? { x: shape.margin + c, y: shape.top + a } : { x: shape.margin + a, y: shape.top + c };
  return {
    vertical,
    shape,
    card: (index) => point(start(index), 0),
    length: start(nodeCount) - shape.gap,
    /**
     * A straight bar between neighbours, an arc beside the row for a channel that skips nodes or runs beside another.
     */
    channel(fromIndex, toIndex, parallel) {
      if (toIndex === fromIndex + 1 && parallel === 0) {
        const [a0, a1, c] = [start(fromIndex) + along, start(toIndex), across / 2];
        const [p0, p1] = [point(a0, c), point(a1, c)];
        const middle = (a0 + a1) / 2;
        return {
          d: `M${p0.x},${p0.y} L${p1.x},${p1.y}`,
          depth: 0,
          // a row: capacity above the bar, each side's balance under its end; a column: all beside the bar
          capacityAt: vertical
            ? { ...point(middle, c + 16), anchor: 'start' }
            : { ...point(middle, c - 16), anchor: 'middle' },
          sidesAt: vertical
            ? [
                { ...point(a0 + 20, c + 16), anchor: 'start' },
                { ...point(a1 - 8, c + 16), anchor: 'start' },
              ]
            : [
                { ...point(a0 + 6, c + 30), anchor: 'start' },
                { ...point(a1 - 6, c + 30), anchor: 'end' },
              ],
        };
      }
      const [a0, a1] = [start(fromIndex) + along / 2 + 24, start(toIndex) + along / 2 - 24];
      const depth = 60 + 50 * (toIndex - fromIndex - 1) + 45 * parallel;
      const [p0, control, p1] = [point(a0, across), point((a0 + a1) / 2, across + 2 * depth), point(a1, across)];
      // a quadratic curve reaches half way to its control point
      const apex = vertical
        ? { ...point((a0 + a1) / 2, across + depth + 10), anchor: 'start' }
        : { ...point((a0 + a1) / 2, across + depth + 24), anchor: 'middle' };
      return { d: `M${p0.x},${p0.y} Q${control.x},${control.y} ${p1.x},${p1.y}`, depth, capacityAt: apex, sidesAt: [] };
    },
  };
}

const label = (at, className, text, dy = 0) =>
  svgEl('text', { x: at.x, y: at.y + dy, class: className, 'text-anchor': at.anchor }, text);

/** A faulty link: red dashes over its path, and the fault in words beside it. */
function drawFault(d, at, link) {
  return svgEl(
    'g',
    { class: 'link-fault', dataset: { between: link.between.join('|'), fault: link.description } },
    svgEl('path', { d, class: 'link-fault-path', fill: 'none' }),
    svgEl('text', { x: at.x, y: at.y, class: 'link-fault-label', 'text-anchor': at.anchor }, link.description),
  );
}

function drawChannel(channel, geometry, colors) {
  const localShare = channel.capacitySat > 0 ? channel.localSat / channel.capacitySat : 0;
  const bar = (color, dash) =>
    svgEl('path', {
      d: geometry.d,
      class: 'channel-bar',
      fill: 'none',
      stroke: color,
      'stroke-width': BAR_WIDTH,
      pathLength: DASH_SCALE,
      'stroke-dasharray': dash,
    });
  const capacity = `${compactSat(channel.capacitySat)} sat${channel.active ? '' : ' · inactive'}`;
  const sides = [compactSat(channel.localSat), compactSat(channel.remoteSat)];
  const labels = geometry.sidesAt.length
    ? [
        label(geometry.capacityAt, 'channel-capacity', capacity),
        ...geometry.sidesAt.map((at, index) => label(at, 'channel-side', sides[index])),
      ]
    : [
        label(geometry.capacityAt, 'channel-capacity', capacity),
        label(geometry.capacityAt, 'channel-side', `${sides[0]} | ${sides[1]}`, 18),
      ];
  return svgEl(
    'g',
    {
      class: 'channel',
      'data-active': String(channel.active),
      dataset: {
        from: channel.from,
        to: channel.to,
        localSat: String(channel.localSat),
        remoteSat: String(channel.remoteSat),
      },
    },
    bar(colors.get(channel.to), 'none'),
    bar(colors.get(channel.from), `${(localShare * DASH_SCALE).toFixed(1)} ${DASH_SCALE}`),
    ...labels,
  );
}

function drawNode(node, at, card, status, color, cutOff) {
  const line = (y, text, className) => svgEl('text', { x: 16, y, class: className }, text);
  // a node that is not ready (or does not answer) has no figures to show; one cut off says so first
  const figures = cutOff
    ? [line(86, 'cut off from the lab', 'node-error')]
    : node.error
      ? [line(86, 'not answering', 'node-error')]
      : node.chainBalanceSat === undefined
        ? [line(86, node.status ?? 'no figures yet', 'node-error')]
        : [
            line(86, `on-chain ${compactSat(node.chainBalanceSat)}`, 'node-figure'),
            line(109, `channels ${compactSat(node.channelBalanceSat)}`, 'node-figure'),
          ];
  return svgEl(
    'g',
    {
      class: 'node',
      transform: `translate(${at.x},${at.y})`,
      dataset: { node: node.name, status: status ?? 'unknown', cutOff: String(cutOff) },
    },
    svgEl('rect', { class: 'card-frame', width: card.width, height: card.height, rx: 12 }),
    svgEl('circle', { cx: 25, cy: 28, r: 9, fill: color }),
    svgEl('text', { x: 42, y: 35, class: 'node-name' }, node.name),
    svgEl('text', { x: card.width - 14, y: 34, class: 'node-kind', 'text-anchor': 'end' }, node.kind),
    line(60, shortHex(node.pubkey), 'node-key'),
    ...figures,
  );
}

/** The fault of a node's link to the chain backend it follows (btcd, the indexer or the chain adapter). */
const chainFaultOf = (faults, node) =>
  ['chain', 'indexer', 'chain-adapter'].map((service) => faults.byPair.get(pairKey(node, service))).find(Boolean);

function drawChain(view, status, layout, cardCentres, faults) {
  const centre = layout.vertical
    ? (cardCentres[0]?.x ?? CHAIN.width / 2)
    : (layout.shape.margin * 2 + layout.length) / 2;
  const bottom = CHAIN.y + CHAIN.height;
  // a row has a line from the chain to each node; a column only to the first (the others would cross the cards)
  const linked = layout.vertical ? cardCentres.slice(0, 1) : cardCentres;
  const chainLink = (card) => {
    const line = svgEl('line', { class: 'chain-link', x1: centre, y1: bottom, x2: card.x, y2: card.y });
    const fault = chainFaultOf(faults, card.node);
    if (!fault) return line;
    const middle = { x: (centre + card.x) / 2, y: (bottom + card.y) / 2, anchor: 'middle' };
    return svgEl('g', {}, line, drawFault(`M${centre},${bottom} L${card.x},${card.y}`, middle, fault));
  };
  return svgEl(
    'g',
    { class: 'chain' },
    ...linked.map(chainLink),
    svgEl(
      'g',
      { transform: `translate(${centre - CHAIN.width / 2},${CHAIN.y})`, dataset: { status: status ?? 'unknown' } },
      svgEl('rect', { class: 'card-frame', width: CHAIN.width, height: CHAIN.height, rx: 12 }),
      svgEl(
        'text',
        { x: CHAIN.width / 2, y: 23, class: 'node-kind', 'text-anchor': 'middle' },
        `chain · ${view.chain?.kind ?? 'btcd'}`,
      ),
      svgEl(
        'text',
        { x: CHAIN.width / 2, y: 47, class: 'node-name', 'text-anchor': 'middle' },
        `height ${view.chain?.height ?? '–'}`,
      ),
    ),
  );
}

function describe(view, channels) {
  const nodes = (view.nodes ?? []).map(
    (node) =>
      `${node.name} (${compactSat(node.chainBalanceSat)} sat on-chain, ${compactSat(node.channelBalanceSat)} in channels)`,
  );
  const bars = channels.map(
    (channel) =>
      `${channel.from} to ${channel.to}: ${compactSat(channel.localSat)} and ${compactSat(channel.remoteSat)} of ${compactSat(channel.capacitySat)} sat`,
  );
  return `Chain height ${view.chain?.height ?? 'unknown'}. Nodes: ${nodes.join('; ') || 'none'}. Channels: ${bars.join('; ') || 'none'}.`;
}

/** Draws the lab's chain, nodes and channels (from labChannels) into `svg`, as a column when `vertical`. */
export function renderGraph(svg, view, channels, colors, vertical) {
  const nodes = view.nodes ?? [];
  const statuses = serviceStatuses(view);
  const faults = linkFaults(view);
  const order = new Map(nodes.map((node, index) => [node.name, index]));
  const layout = layoutFor(vertical, nodes.length);
  const { card, margin, top } = layout.shape;
  const drawn = channels
    .filter((channel) => !channel.external)
    .map((channel) => ({
      channel,
      geometry: layout.channel(order.get(channel.from), order.get(channel.to), channel.parallel),
    }));
  // each faulty pair of nodes once: over its first channel, or along a path of its own when it has none
  const withChannel = new Set(drawn.map(({ channel }) => pairKey(channel.from, channel.to)));
  const pairs = [...faults.byPair.values()].filter(({ between }) => between.every((end) => order.has(end)));
  const faultPaths = pairs.map((link) => {
    const [from, to] = [...link.between].sort((a, b) => order.get(a) - order.get(b));
    const key = pairKey(from, to);
    const geometry = withChannel.has(key)
      ? drawn.find(({ channel }) => pairKey(channel.from, channel.to) === key).geometry
      : layout.channel(order.get(from), order.get(to), 1);
    // the fault in words: above a bar's capacity, under an arc's two lines, or where an arc of its own has its capacity
    const [at, room] = geometry.sidesAt.length
      ? [{ ...geometry.capacityAt, y: geometry.capacityAt.y - 20 }, 0]
      : withChannel.has(key)
        ? [{ ...geometry.capacityAt, y: geometry.capacityAt.y + 38 }, 40]
        : [geometry.capacityAt, 0];
    return { geometry: { ...geometry, depth: geometry.depth + room }, element: drawFault(geometry.d, at, link) };
  });
  const cards = nodes.map((_, index) => layout.card(index));
  const beside = Math.max(
    40,
    ...[...drawn, ...faultPaths].map(({ geometry }) => geometry.depth + (vertical ? 150 : 50)),
  );
  const acrossSize = (vertical ? card.width : card.height) + beside;
  const [width, height] = vertical
    ? [Math.max(CHAIN.width, margin + acrossSize), top + Math.max(0, layout.length) + margin]
    : [Math.max(CHAIN.width, layout.length) + 2 * margin, top + acrossSize];
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('aria-label', describe(view, channels));
  svg.replaceChildren(
    drawChain(
      view,
      statuses.get('chain'),
      layout,
      cards.map((at, index) => ({ x: at.x + card.width / 2, y: at.y, node: nodes[index].name })),
      faults,
    ),
    ...drawn.map(({ channel, geometry }) => drawChannel(channel, geometry, colors)),
    ...faultPaths.map(({ element }) => element),
    ...nodes.map((node, index) =>
      drawNode(node, cards[index], card, statuses.get(node.name), colors.get(node.name), faults.cutOff.has(node.name)),
    ),
  );
}
