// reglab-ldk's event stream (GET /v1/events, server-sent events), followed from now on: after a
// break (the daemon restarted) it reconnects and resumes after the last event it saw (Last-Event-ID).
import { sleep } from '../../wait.js';
import type { LdkEvent } from './api.js';

/** The events of one server-sent-events block (`id:`, `event:`, `data:` lines; `:` lines are keep-alives). */
function parseBlock(block: string): { id?: string; data?: string } {
  const field = (name: string) =>
    block
      .split('\n')
      .filter((line) => line.startsWith(`${name}:`))
      .map((line) => line.slice(name.length + 1).trimStart());
  const data = field('data');
  return { id: field('id').at(-1), data: data.length > 0 ? data.join('\n') : undefined };
}

/** Calls `onEvent` for each new event of the daemon at `url` until the returned function is called. */
export function followLdkEvents(
  url: string,
  onEvent: (event: LdkEvent) => void,
  options: { retryMs?: number } = {},
): () => void {
  const stopped = new AbortController();
  let lastId: string | undefined;
  const readOnce = async () => {
    const response = await fetch(new URL('/v1/events', url), {
      headers: { accept: 'text/event-stream', ...(lastId === undefined ? {} : { 'last-event-id': lastId }) },
      signal: stopped.signal,
    });
    if (!response.ok || !response.body) throw new Error(`GET /v1/events answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const { id, data } = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (id !== undefined) lastId = id;
        if (data !== undefined) onEvent(JSON.parse(data) as LdkEvent);
      }
    }
  };
  void (async () => {
    while (!stopped.signal.aborted) {
      // a broken stream (the daemon restarting) is followed again after a pause
      await readOnce().catch(() => undefined);
      if (!stopped.signal.aborted) await sleep(options.retryMs ?? 1_000);
    }
  })();
  return () => stopped.abort();
}
