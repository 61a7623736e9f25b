// The engine's event stream narrowed to the deaths of one lab's containers, so the supervisor hears
// of a dead container at once rather than at its next poll. Podman's compatible API (4.3) answers
// nothing when an `event` filter is combined with others, and nothing for a bare label key: the
// stream is filtered by the lab's label=value and the deaths are picked out here.
import type Docker from 'dockerode';
import { sleep } from '../../../../lib/wait.js';

/** After the stream broke (the engine restarted), the wait before it is opened again. */
const RECONNECT_MS = 1_000;

interface EngineEvent {
  Type?: string;
  Action?: string;
  status?: string;
  /** Seconds since the epoch. */
  time?: number;
}

/**
 * Calls `onExit` each time a container carrying `label` (key=value) dies from now on. Returns how
 * to stop watching.
 */
export function watchContainerExits(docker: () => Promise<Docker>, label: string, onExit: () => void): () => void {
  const stopped = new AbortController();
  // Each stream is opened with `since`: the engine first replays what happened from then, so a death
  // while the stream was being opened, or broken, is told too (one told twice costs a check more).
  let since = Math.floor(Date.now() / 1000);
  void (async () => {
    while (!stopped.signal.aborted) {
      try {
        const stream = await (await docker()).getEvents({
          since,
          filters: { label: [label] },
          abortSignal: stopped.signal,
        });
        await forEachLine(stream, (line) => {
          const event = parse(line);
          if (event?.time) since = event.time;
          if (event?.Type === 'container' && (event.Action ?? event.status) === 'die') onExit();
        });
      } catch {
        // the engine went away, or watching stopped; the supervisor's polling covers the gap
      }
      if (!stopped.signal.aborted) await sleep(RECONNECT_MS);
    }
  })();
  return () => stopped.abort();
}

/** The stream is one JSON event per line; a chunk may end in the middle of one. */
async function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): Promise<void> {
  let pending = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) {
    pending += chunk as string;
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      onLine(pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
  }
}

function parse(line: string): EngineEvent | undefined {
  try {
    return JSON.parse(line) as EngineEvent;
  } catch {
    return undefined;
  }
}
