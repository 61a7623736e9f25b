// The lab's services: their health and URLs, and (with access) a restart, the credentials a
// developer copies and the last log lines.
import { call, labPath } from './api.js';
import { copyButton } from './clipboard.js';
import { el, syncChildren } from './dom.js';
import { reachable } from './format.js';
import { perform } from './progress.js';

const LOG_LINES = 40;

const isWebUrl = (value) => /^https?:\/\//i.test(value);

/** Name/value rows, each value with a copy button; web URLs are links. */
function valueList(serviceName, entries) {
  return entries.flatMap(([name, value]) => {
    const text = reachable(typeof value === 'string' ? value : JSON.stringify(value));
    const shown = isWebUrl(text)
      ? el('a', { href: text, target: '_blank', rel: 'noopener' }, text)
      : el('code', {}, text);
    return [
      el('dt', {}, name),
      el(
        'dd',
        {},
        shown,
        ' ',
        copyButton(`${serviceName} ${name}`, () => text),
      ),
    ];
  });
}

// per item: how to hide what it revealed (for when the page turns read-only), and the info it shows
const hideSecretsOf = new WeakMap();
const infoShown = new WeakMap();

/** A "Show <what>" button that shows what `load()` answers in `panel`, and hides it again. */
function revealer({ what, panel, load, outcome, onError }) {
  const button = el('button', { type: 'button', 'aria-expanded': 'false' }, `Show ${what}`);
  const hide = () => {
    panel.hidden = true;
    panel.replaceChildren();
    button.setAttribute('aria-expanded', 'false');
    button.textContent = `Show ${what}`;
  };
  button.addEventListener('click', async () => {
    if (button.getAttribute('aria-expanded') === 'true') return hide();
    await perform({ button, outcome, busyLabel: 'Loading…', onError }, async () => {
      panel.replaceChildren(...(await load()));
      panel.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      return '';
    });
    if (button.getAttribute('aria-expanded') === 'true') button.textContent = `Hide ${what}`;
  });
  return { button, hide };
}

function createItem(service, { lab, onError }) {
  const name = service.name;
  const outcome = el('p', { class: 'outcome', role: 'status' });
  const credentials = el('dl', { class: 'credentials', hidden: true });
  const logs = el('pre', { class: 'logs', tabindex: '0', 'aria-label': `last log lines of ${name}`, hidden: true });
  const restart = el('button', { type: 'button', class: 'restart' }, 'Restart');
  restart.addEventListener('click', () =>
    perform({ button: restart, outcome, busyLabel: 'Restarting…', onError }, async () => {
      const answer = await call('POST', labPath(lab, `/services/${encodeURIComponent(name)}/restart`));
      return `${name} restarted: ${answer.status}.`;
    }),
  );
  const credentialsShown = revealer({
    what: 'credentials',
    panel: credentials,
    outcome,
    onError,
    load: async () =>
      valueList(
        name,
        Object.entries(await call('GET', labPath(lab, `/services/${encodeURIComponent(name)}/credentials`))),
      ),
  });
  const logShown = revealer({
    what: 'log',
    panel: logs,
    outcome,
    onError,
    load: async () => [
      (await call('GET', labPath(lab, `/logs/${encodeURIComponent(name)}?lines=${LOG_LINES}`))).trim() ||
        '(the log is empty)',
    ],
  });

  const item = el(
    'li',
    { class: 'service', dataset: { service: name } },
    el(
      'details',
      {},
      el(
        'summary',
        {},
        el('span', { class: 'dot', 'aria-hidden': 'true' }),
        el('span', { class: 'name' }, name),
        el('span', { class: 'kind' }),
        el('span', { class: 'status' }),
      ),
      el(
        'div',
        { class: 'service-body' },
        el('p', { class: 'service-error', tabindex: '0', hidden: true }),
        el('dl', { class: 'info' }),
        el('p', { class: 'meta' }),
        el('div', { class: 'service-actions' }, restart, credentialsShown.button, logShown.button),
        outcome,
        credentials,
        logs,
      ),
    ),
  );
  hideSecretsOf.set(item, () => {
    credentialsShown.hide();
    logShown.hide();
  });
  return item;
}

function updateItem(item, service, readOnly) {
  item.dataset.status = service.status;
  item.querySelector('.kind').textContent = service.kind;
  item.querySelector('.status').textContent = service.restarts
    ? `${service.status} · restarted ${service.restarts}×`
    : service.status;
  const error = item.querySelector('.service-error');
  error.hidden = !service.error;
  error.textContent = service.error ?? '';
  const info = JSON.stringify(service.info ?? {});
  if (infoShown.get(item) !== info) {
    infoShown.set(item, info);
    item.querySelector('.info').replaceChildren(...valueList(service.name, Object.entries(service.info ?? {})));
  }
  const ports = Object.entries(service.ports ?? {}).map(([port, number]) => `${port} ${number}`);
  item.querySelector('.meta').textContent = [
    ports.length ? `ports: ${ports.join(', ')}` : '',
    service.restartPolicy ? `restart: ${service.restartPolicy}` : '',
    service.since ? `since ${new Date(service.since).toLocaleTimeString()}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  item.querySelector('.service-actions').hidden = readOnly;
  if (readOnly) hideSecretsOf.get(item)();
}

/** The services list; `update(services, readOnly)` keeps each item (and whether it is open) across updates. */
export function createServicesPanel(list, context) {
  return {
    update(services = [], readOnly) {
      syncChildren(
        list,
        services,
        (service) => service.name,
        (service) => createItem(service, context),
        (item, service) => updateItem(item, service, readOnly),
      );
    },
  };
}
