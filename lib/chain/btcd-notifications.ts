import WebSocket from 'ws';
import { nodeAddresses } from './node-addresses.js';
import type { ChainRpcConfig } from './types.js';

const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 10_000;
/** A connection whose node has not answered a ping within this is taken as dead (a container gone without a word). */
const PING_MS = 15_000;
const BLOCKS_ID = 1;
const TRANSACTIONS_ID = 2;

export interface BtcdWatchOptions {
  /** Also each transaction btcd accepts into its mempool (`notifynewtransactions`). */
  transactions?: boolean;
  /** Runs when a connection that had its subscriptions ends: until the next one, nothing is heard. */
  onLost?: () => void;
}

export interface BtcdWatch {
  /** True while a connection has every subscription asked for: a change now comes as a notice. */
  subscribed(): boolean;
  stop(): void;
}

/**
 * btcd's notifications over its websocket RPC: each block it connects or disconnects
 * (`notifyblocks`) and, when asked, each transaction it accepts, instead of asking btcd again and
 * again. `onChange` runs at each notice, and once btcd has taken each subscription, so that the
 * caller catches up with what it did not hear before. The connection ends when the node does; it is made again, one second after the
 * first failure, then less often up to every ten seconds. `config` is asked at each connection: a
 * restarted node may have a new certificate.
 */
export function watchBtcd(
  config: () => ChainRpcConfig,
  onChange: () => void,
  options: BtcdWatchOptions = {},
): BtcdWatch {
  const subscriptions = new Map([[BLOCKS_ID, 'notifyblocks']]);
  if (options.transactions) subscriptions.set(TRANSACTIONS_ID, 'notifynewtransactions');
  let socket: WebSocket | undefined;
  let taken = new Set<number>();
  let retry: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  let stopped = false;

  const connect = () => {
    if (stopped) return;
    let rpc: ChainRpcConfig;
    try {
      rpc = config();
    } catch {
      return connectLater(); // the lab has no address for its chain node right now
    }
    const url = new URL('/ws', rpc.url.replace(/^http/, 'ws'));
    const authorization = `Basic ${Buffer.from(`${rpc.user}:${rpc.password}`).toString('base64')}`;
    const opened = new WebSocket(url, {
      headers: { authorization },
      ca: rpc.tlsCertPem,
      handshakeTimeout: 5_000,
      lookup: nodeAddresses.lookup,
    });
    socket = opened;
    taken = new Set();
    let answered = true;
    const pings = setInterval(() => {
      if (opened.readyState !== WebSocket.OPEN) return;
      if (!answered) return opened.terminate();
      answered = false;
      opened.ping();
    }, PING_MS);
    pings.unref();
    opened.on('pong', () => (answered = true));
    opened.on('open', () => {
      retryMs = FIRST_RETRY_MS;
      for (const [id, method] of subscriptions) opened.send(JSON.stringify({ jsonrpc: '1.0', id, method, params: [] }));
    });
    opened.on('message', (data) => {
      const message = parse(data.toString());
      if (typeof message?.method === 'string' && NOTICE.test(message.method)) return onChange();
      if (typeof message?.id === 'number' && subscriptions.has(message.id) && !message.error) {
        taken.add(message.id);
        onChange();
      }
    });
    // 'close' follows
    opened.on('error', (error: NodeJS.ErrnoException) => nodeAddresses.forgetAfter(url.hostname, error));
    opened.on('close', () => {
      clearInterval(pings);
      if (socket !== opened) return;
      const wasSubscribed = watch.subscribed();
      taken = new Set();
      if (wasSubscribed && !stopped) options.onLost?.();
      connectLater();
    });
  };

  const connectLater = () => {
    if (stopped) return;
    retry = setTimeout(connect, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const watch: BtcdWatch = {
    subscribed: () => taken.size === subscriptions.size,
    stop() {
      stopped = true;
      clearTimeout(retry);
      socket?.terminate();
    },
  };
  connect();
  return watch;
}

/**
 * btcd's notices: blockconnected and blockdisconnected (and their filtered forms), txaccepted (and its verbose form).
 */
const NOTICE = /^((filtered)?block(dis)?connected|txaccepted(verbose)?)$/;

function parse(text: string): { method?: unknown; id?: unknown; error?: unknown } | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
