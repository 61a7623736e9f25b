// The lab's payment activity (reglab activity): running or not, payments a second, outcomes, and
// failures by reason, from GET /labs/{lab}/activity and the `activity` events after it.
import { el } from './dom.js';
import { formatAmount } from './format.js';

const figure = (name, label, value) =>
  el('div', { class: 'figure', dataset: { figure: name } }, el('dt', {}, label), el('dd', {}, value));

export function createPaymentActivity(panel) {
  const state = panel.querySelector('.payments-state');
  const figures = panel.querySelector('.payments-figures');
  const failures = panel.querySelector('.payments-failures');
  return {
    /** `status`: the activity as the API or an `activity` event describes it. */
    show(status) {
      panel.dataset.running = String(Boolean(status.running));
      if (!status.startedAt) {
        state.textContent = 'No activity has run: start one with `reglab activity start`.';
        figures.hidden = true;
        failures.hidden = true;
        return;
      }
      state.textContent = status.running
        ? `Running since ${new Date(status.startedAt).toLocaleTimeString()}.`
        : `Stopped at ${new Date(status.stoppedAt).toLocaleTimeString()} (${status.stopReason}).`;
      figures.hidden = false;
      figures.replaceChildren(
        figure('rate', 'Payments / s', String(status.paymentsPerSecond)),
        figure('succeeded', 'Succeeded', formatAmount(status.succeeded)),
        figure('failed', 'Failed', formatAmount(status.failed)),
        figure('in-flight', 'In flight', formatAmount(status.inFlight)),
      );
      const reasons = Object.entries(status.failuresByReason ?? {}).sort(([, a], [, b]) => b - a);
      failures.hidden = reasons.length === 0;
      failures.tBodies[0].replaceChildren(
        ...reasons.map(([reason, count]) =>
          el('tr', { dataset: { reason } }, el('td', {}, reason), el('td', { class: 'count' }, formatAmount(count))),
        ),
      );
    },
  };
}
