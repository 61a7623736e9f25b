// An action the user started: its button shows that it runs, its outcome line how it went.

const JOB_STATES = { waiting: 'queued', active: 'running', delayed: 'waiting to retry', prioritized: 'queued' };

function show(outcome, kind, text) {
  outcome.dataset.kind = kind;
  outcome.textContent = text;
}

/**
 * Runs `work(report)` for `button`, one at a time: the button says `busyLabel` while it runs (it
 * stays focusable, marked aria-disabled, so a keyboard user keeps their place), `report(text)`
 * shows progress in `outcome`, then the message `work` answers or the error. `onError` hears the
 * error as well (a 401 turns the page read-only).
 */
export async function perform({ button, outcome, busyLabel, onError }, work) {
  if (button.getAttribute('aria-disabled') === 'true') return;
  const idleLabel = button.textContent;
  button.setAttribute('aria-disabled', 'true');
  button.textContent = busyLabel;
  show(outcome, 'busy', busyLabel);
  try {
    show(outcome, 'ok', await work((text) => show(outcome, 'busy', text)));
  } catch (error) {
    show(outcome, 'error', error.message);
    onError?.(error);
  } finally {
    button.removeAttribute('aria-disabled');
    button.textContent = idleLabel;
  }
}

/** A runJob listener that reports the job's state under `doing` ("Mining…: queued"). */
export const reportJob = (report, doing) => (state, attempts) =>
  report(`${doing}: ${JOB_STATES[state] ?? state}${attempts > 0 ? ` (attempt ${attempts + 1})` : ''}`);
