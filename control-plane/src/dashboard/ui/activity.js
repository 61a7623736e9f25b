// The lab's recent events, in words, newest first.
import { el } from './dom.js';
import { formatSat, plural } from './format.js';

const KEPT = 40;

// a service's message can carry its log tail: the list shows the first line
const reason = (message) => (message ? ` (${message.split('\n')[0]})` : '');

function describe(event, known) {
  switch (event.type) {
    case 'blocks':
      return `${plural(event.mined, 'block')} mined: height ${event.height}`;
    case 'payment':
      // the payment activity's are counted in its own panel
      if (event.activity) return undefined;
      return `${event.from} paid ${event.to ?? 'an invoice'} ${formatSat(event.amountSat)} (fee ${formatSat(event.feeSat)})`;
    case 'channel':
      return `channel ${event.node}${event.partner ? ` ⟷ ${event.partner}` : ''} ${event.state === 'open' ? 'opened' : 'closed'}`;
    case 'service':
      if (event.status === known.serviceStatus) return undefined;
      return `${event.service}: ${event.status}${reason(event.message)}`;
    case 'network':
      return `network ${event.action} ${event.target}: ${event.links.map((link) => `${link.between.join(' ⟷ ')} ${link.description}`).join('; ') || 'no link had a fault'}`;
    case 'engine':
      return event.answering ? 'the container engine answers again' : event.message;
    case 'lab':
      if (event.status === known.labStatus) return undefined;
      return `lab ${event.status}${reason(event.message)}`;
    case 'phase':
      if (known.labStatus !== 'starting') return undefined;
      return `bring-up: ${event.phase} (${(event.ms / 1000).toFixed(1)} s)`;
    case 'image':
      return known.labStatus === 'starting' ? `image: ${event.line.split('\n')[0]}` : undefined;
    case 'job':
      return event.state === 'failed' ? `${event.queue} job failed: ${event.error}` : undefined;
    case 'control-plane':
      return `control plane started again by its keeper; the last one ended: ${event.lastEnded}`;
    default:
      return undefined;
  }
}

/**
 * `add(event, known)` puts the event on top of `list`; `known` is what the page knew before it
 * ({labStatus, serviceStatus}): the stream starts with the current state, which is no news.
 */
export function createActivity(list) {
  return {
    add(event, known) {
      const text = describe(event, known);
      if (!text) return;
      const time = new Date();
      list.prepend(
        el(
          'li',
          { dataset: { type: event.type } },
          el('time', { datetime: time.toISOString() }, time.toLocaleTimeString()),
          ' ',
          text,
        ),
      );
      while (list.children.length > KEPT) list.lastElementChild.remove();
    },
  };
}
