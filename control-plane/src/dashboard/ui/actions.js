// The action forms: mine, fund, pay, open and close a channel, claim from the faucet. Each is
// described once (its fields and what it does); each queues its job through the control plane (or
// calls the faucet) and says how it went.
import { call, labPath, runJob } from './api.js';
import { byId, el, setOptions } from './dom.js';
import { formatSat, plural, reachable, shortHex } from './format.js';
import { perform, reportJob } from './progress.js';

const amount = (name, label, value, min = 1) => ({
  name,
  label,
  input: { type: 'number', min, step: 1, value, required: true },
});
const text = (name, label, extra = {}) => ({
  name,
  label,
  input: { autocomplete: 'off', spellcheck: 'false', required: true, ...extra },
});
const nodeChoice = (name, label) => ({ name, label, choices: 'node' });

/** The faucet's claim URL, from its service info (the faucet answers any origin). */
function faucetClaimUrl(view) {
  const url = view.services.find((service) => service.kind === 'faucet')?.info?.url;
  return url ? `${reachable(url).replace(/\/$/, '')}/api/claim` : undefined;
}

const ACTIONS = [
  {
    id: 'mine',
    title: 'Mine blocks',
    submit: 'Mine',
    busy: 'Mining…',
    fields: [amount('blocks', 'Blocks', 1)],
    async run({ lab }, { blocks }, report) {
      const result = await runJob(labPath(lab, '/mine'), { blocks }, reportJob(report, 'Mining'));
      return `Mined ${plural(blocks, 'block')}: the chain is at height ${result.height}.`;
    },
  },
  {
    id: 'fund',
    title: 'Fund a node or an address',
    submit: 'Fund',
    busy: 'Funding…',
    fields: [
      text('target', 'Node or bcrt1 address', { list: 'node-names' }),
      amount('amount', 'Amount (sat)', 100_000),
    ],
    async run({ lab, view }, { target, amount: amountSat }, report) {
      const to = view.nodes.some((node) => node.name === target) ? { node: target } : { address: target };
      const result = await runJob(
        labPath(lab, '/fund'),
        { ...to, amount_sat: amountSat },
        reportJob(report, 'Funding'),
      );
      return `Sent ${formatSat(amountSat)} to ${target} in ${shortHex(result.txid)}, confirmed at height ${result.height}.`;
    },
  },
  {
    id: 'pay',
    title: 'Pay between nodes',
    submit: 'Pay',
    busy: 'Paying…',
    fields: [nodeChoice('from', 'From'), nodeChoice('to', 'To'), amount('amount', 'Amount (sat)', 1_000)],
    async run({ lab }, { from, to, amount: amountSat }, report) {
      const result = await runJob(
        labPath(lab, '/payments'),
        { from, to, amount_sat: amountSat },
        reportJob(report, 'Paying'),
      );
      const route = result.hops === undefined ? '' : ` over ${plural(result.hops, 'hop')}`;
      return `${from} paid ${to} ${formatSat(result.amountSat)}${route}, fee ${formatSat(result.feeSat)}.`;
    },
  },
  {
    id: 'open',
    title: 'Open a channel',
    submit: 'Open',
    busy: 'Opening…',
    fields: [
      nodeChoice('from', 'From'),
      nodeChoice('to', 'To'),
      amount('capacity', 'Capacity (sat)', 500_000),
      amount('push', 'Push to the partner (sat)', 0, 0),
    ],
    async run({ lab }, { from, to, capacity, push }, report) {
      const result = await runJob(
        labPath(lab, '/channels'),
        { from, to, capacity_sat: capacity, push_sat: push },
        reportJob(report, 'Opening'),
      );
      return `The channel ${from} → ${to} of ${formatSat(capacity)} is open (funding ${shortHex(result.fundingTxid)}:${result.fundingVout}).`;
    },
  },
  {
    id: 'close',
    title: 'Close a channel',
    submit: 'Close',
    busy: 'Closing…',
    fields: [
      { name: 'channel', label: 'Channel', choices: 'channel' },
      { name: 'force', label: 'Force close (no cooperation; the funds wait for the time lock)', checkbox: true },
    ],
    async run({ lab, channels }, { channel: key, force }, report) {
      const channel = channels.find((candidate) => candidate.key === key);
      if (!channel) throw new Error('choose a channel to close');
      const body = {
        node: channel.from,
        ...(channel.id ? { channel_id: channel.id } : { partner: channel.to }),
        force,
      };
      const result = await runJob(labPath(lab, '/channels/close'), body, reportJob(report, 'Closing'));
      const maturity = result.maturityBlocks
        ? `; the funds can be swept after ${plural(result.maturityBlocks, 'more block')}`
        : '';
      return `The channel ${channel.from} ⟷ ${channel.to} is ${force ? 'force-' : ''}closed in ${shortHex(result.closingTxid)}${maturity}.`;
    },
  },
  {
    id: 'faucet',
    title: 'Claim from the faucet',
    submit: 'Claim',
    busy: 'Claiming…',
    fields: [text('address', 'bcrt1 address')],
    async run({ view }, { address }) {
      const url = faucetClaimUrl(view);
      if (!url) throw new Error('this lab has no faucet service');
      const paid = await call('POST', url, { address });
      return `The faucet sent ${formatSat(paid.amount_sat)} to ${paid.address} in ${shortHex(paid.txid)}, confirmed in block ${paid.block_height}.`;
    },
  },
];

function buildForm(action) {
  const idOf = (field) => `${action.id}-${field.name}`;
  const controls = action.fields.flatMap((field) => {
    if (field.checkbox)
      return [
        el(
          'label',
          { class: 'check' },
          el('input', { id: idOf(field), name: field.name, type: 'checkbox' }),
          ` ${field.label}`,
        ),
      ];
    const control = field.choices
      ? el('select', { id: idOf(field), name: field.name, required: true, dataset: { choices: field.choices } })
      : el('input', { id: idOf(field), name: field.name, ...field.input });
    return [el('label', { for: idOf(field) }, field.label), control];
  });
  return el(
    'form',
    { id: `${action.id}-form`, class: 'action', 'aria-labelledby': `${action.id}-title` },
    el('h3', { id: `${action.id}-title` }, action.title),
    ...controls,
    el('button', { type: 'submit' }, action.submit),
    el('p', { class: 'outcome', role: 'status' }),
  );
}

/** The form's values by field: numbers for amounts, booleans for check boxes, trimmed text otherwise. */
function valuesOf(form, action) {
  return Object.fromEntries(
    action.fields.map((field) => {
      const control = form.elements.namedItem(field.name);
      if (field.checkbox) return [field.name, control.checked];
      return [field.name, field.input?.type === 'number' ? Number(control.value) : control.value.trim()];
    }),
  );
}

/**
 * Builds the forms into `container`; the answer's `update(view, channels)` refreshes their choices
 * (nodes, channels, whether the lab has a faucet).
 */
export function createActions(container, { lab, onError }) {
  const state = { lab, view: { nodes: [], services: [] }, channels: [] };
  for (const action of ACTIONS) {
    const form = buildForm(action);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const target = {
        button: form.querySelector('button[type=submit]'),
        outcome: form.querySelector('.outcome'),
        busyLabel: action.busy,
        onError,
      };
      perform(target, (report) => action.run(state, valuesOf(form, action), report));
    });
    container.append(form);
  }

  let firstChoicesMade = false;
  // choices that suit the default lab: pay from the first node to the last, open a channel to the next
  const makeFirstChoices = (names) => {
    if (firstChoicesMade || names.length < 2) return;
    firstChoicesMade = true;
    byId('pay-to').value = names[names.length - 1];
    byId('open-to').value = names[1];
  };

  return {
    update(view, channels) {
      state.view = { nodes: view.nodes ?? [], services: view.services ?? [] };
      state.channels = channels;
      const nodeOptions = state.view.nodes.map((node) => ({ value: node.name, label: node.name }));
      for (const select of container.querySelectorAll('select[data-choices="node"]'))
        setOptions(select, nodeOptions, 'no nodes');
      makeFirstChoices(state.view.nodes.map((node) => node.name));
      byId('node-names').replaceChildren(...state.view.nodes.map((node) => el('option', { value: node.name })));
      const closable = channels.map((channel) => ({
        value: channel.key,
        label: `${channel.from} ⟷ ${channel.external ? shortHex(channel.to) : channel.to}, ${formatSat(channel.capacitySat)}`,
      }));
      for (const select of container.querySelectorAll('select[data-choices="channel"]'))
        setOptions(select, closable, 'no channels');
      byId('faucet-form').hidden = !faucetClaimUrl(state.view);
    },
  };
}
