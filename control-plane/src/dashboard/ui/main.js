// The dashboard of one lab: the view from GET /labs/{lab}, drawn, kept current by the event
// stream, with the actions and secrets the access allows.
import { createAccessBanner, probeAccess } from './access.js';
import { createActions } from './actions.js';
import { createActivity } from './activity.js';
import { call, labPath } from './api.js';
import { renderChannels } from './channel-list.js';
import { byId, showBuildNotice, showNotice } from './dom.js';
import { renderGraph } from './graph.js';
import { chooseLab } from './labs.js';
import { coalesce, followEvents } from './live.js';
import { labChannels, nodeColors } from './model.js';
import { renderNodes } from './nodes-table.js';
import { createPaymentActivity } from './payment-activity.js';
import { createServicesPanel } from './services.js';
import { forgetToken, storedToken, takeTokenFromUrl } from './token.js';

// on a narrow screen the graph is a column of nodes rather than a row
const narrow = matchMedia('(max-width: 640px)');

async function showLab(lab) {
  let view;
  let access = { readOnly: false };
  byId('lab-name').textContent = lab;
  document.title = `${lab} · reglab`;

  const onError = (error) => {
    if (error.status === 401) setAccess({ readOnly: true, message: error.message });
  };

  const banner = createAccessBanner(() => void checkAccess());
  const services = createServicesPanel(byId('services'), { lab, onError });
  const actions = createActions(byId('action-forms'), { lab, onError });
  const activity = createActivity(byId('activity'));
  const payments = createPaymentActivity(byId('payments'));

  const render = () => {
    byId('lab-status').textContent = view.status;
    byId('lab-status').dataset.status = view.status;
    byId('chain-height').textContent = view.chain?.height ?? '–';
    const channels = labChannels(view);
    const colors = nodeColors(view.nodes);
    renderGraph(byId('graph'), view, channels, colors, narrow.matches);
    renderNodes(byId('nodes'), view.nodes, colors);
    renderChannels(byId('channels'), channels, colors);
    services.update(view.services, access.readOnly);
    actions.update(view, channels);
    if (view.engine?.answering === false)
      showNotice(
        `${view.engine.message} Since ${new Date(view.engine.since).toLocaleTimeString()}, the lab's containers run on but none can be started, stopped or restarted.`,
      );
  };
  const setAccess = (next) => {
    // a refused token is dropped, so the field asks for another
    if (next.readOnly && storedToken()) forgetToken();
    access = next;
    banner.show(access);
    if (view) render();
  };
  const checkAccess = async () => setAccess(await probeAccess(lab));

  const refresh = coalesce(async () => {
    try {
      view = await call('GET', labPath(lab));
      showNotice(undefined);
      render();
    } catch (error) {
      showNotice(`Lab "${lab}": ${error.message}`);
    }
  });

  // what an event says is shown at once; the rest of the view follows from a fresh read
  const apply = (event) => {
    if (!view) return;
    const service = view.services.find((candidate) => candidate.name === event.service);
    activity.add(event, { labStatus: view.status, serviceStatus: service?.status });
    if (event.type === 'blocks' && view.chain) view.chain.height = Math.max(view.chain.height, event.height);
    if (event.type === 'service' && service)
      Object.assign(service, {
        status: event.status,
        error: event.message,
        restarts: event.restarts ?? service.restarts,
      });
    if (event.type === 'lab') view.status = event.status;
    render();
  };

  // a control plane started again by its keeper answers on the same address: the stream comes back
  let restartsSeen = 0;
  const noteRestarts = async () => {
    const health = await call('GET', '/health').catch(() => undefined);
    showBuildNotice(health);
    if (!health || health.restarts <= restartsSeen) return;
    restartsSeen = health.restarts;
    activity.add({ type: 'control-plane', lastEnded: health.lastEnded }, {});
  };

  narrow.addEventListener('change', () => view && render());
  // the link with the token pasted into a tab that shows the page already
  addEventListener('hashchange', () => view && takeTokenFromUrl() && checkAccess());
  await refresh();
  if (view) await checkAccess();
  const readPayments = () => call('GET', `${labPath(lab)}/activity`).then(payments.show, () => undefined);
  await readPayments();
  followEvents(
    lab,
    (event) => {
      // the activity's figures change nothing else of the view
      if (event.type === 'activity') return payments.show(event);
      apply(event);
      refresh();
    },
    (connected) => {
      byId('live').dataset.live = String(connected);
      byId('live').textContent = connected ? 'live' : 'reconnecting…';
      if (connected) {
        refresh();
        readPayments();
        noteRestarts();
      }
    },
  );
}

takeTokenFromUrl();
call('GET', '/health').then(showBuildNotice, () => undefined);
chooseLab().then(
  (lab) => lab && showLab(lab),
  (error) => showNotice(`The control plane did not answer: ${error.message}`),
);
