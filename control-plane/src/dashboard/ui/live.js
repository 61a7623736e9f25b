// Live updates: the lab's event stream, and a refresh that never runs twice at once.

const EVENT_TYPES = [
  'lab',
  'engine',
  'service',
  'phase',
  'image',
  'blocks',
  'job',
  'payment',
  'channel',
  'network',
  'activity',
];

/** After the browser gave a stream up, the wait before it is opened again. */
const REOPEN_MS = 2_000;

/**
 * Follows GET /labs/{lab}/events: each event to `onEvent`, `onLink(connected)` as the stream drops
 * and comes back. The browser reconnects by itself after a network error, but gives up for good on
 * an answer that is not the stream (a control plane closing answers 503): then it is opened anew.
 */
export function followEvents(lab, onEvent, onLink) {
  const source = new EventSource(`/labs/${encodeURIComponent(lab)}/events`);
  for (const type of EVENT_TYPES) source.addEventListener(type, (message) => onEvent(JSON.parse(message.data)));
  source.addEventListener('open', () => onLink(true));
  source.addEventListener('error', () => {
    onLink(false);
    if (source.readyState === EventSource.CLOSED) setTimeout(() => followEvents(lab, onEvent, onLink), REOPEN_MS);
  });
}

/**
 * `load` wrapped so that calls during a run do not start another one but one more run after it:
 * a burst of events costs at most two reads, and the last read comes after the last event.
 */
export function coalesce(load) {
  let running;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return running;
    }
    running = load().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        run();
      }
    });
    return running;
  };
  return run;
}
