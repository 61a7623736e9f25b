import WebSocket from 'ws';
import type { ChainRpcConfig } from '../../../../lib/chain/types.js';

const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 10_000;
/** A connection whose node has not answered a ping within this is taken as dead (a container gone without a word). */
const PING_MS = 15_000;
const SUBSCRIBE_ID = 1;

/**
 * btcd's notifications of each block it connects or disconnects, over its websocket RPC
 * (`notifyblocks`). Asking btcd every second instead costs a TLS handshake a call (btcd closes
 * every HTTP connection after its answer): about half of an idle control plane's CPU. `onChange`
 * runs at each notification, and once btcd has taken each subscription, so that the caller catches
 * up with what it did not hear before. The connection ends when the node does; it is made again,
 * one second after the first failure, then less often up to every ten seconds. `config` is asked at
 * each connection: a restarted node may have a new certificate.
 */
export function watchBtcdBlocks(config: () => ChainRpcConfig, onChange: () => void): () => void {
  let socket: WebSocket | undefined;
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
    const authorization = 'Basic ' + Buffer.from(`${rpc.user}:${rpc.password}`).toString('base64');
    const opened = new WebSocket(url, { headers: { authorization }, ca: rpc.tlsCertPem, handshakeTimeout: 5_000 });
    socket = opened;
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
      opened.send(JSON.stringify({ jsonrpc: '1.0', id: SUBSCRIBE_ID, method: 'notifyblocks', params: [] }));
    });
    opened.on('message', (data) => {
      const message = parse(data.toString());
      const notified = typeof message?.method === 'string' && BLOCK_NOTIFICATION.test(message.method);
      if (notified || (message?.id === SUBSCRIBE_ID && !message.error)) onChange();
    });
    opened.on('error', () => undefined); // 'close' follows
    opened.on('close', () => {
      clearInterval(pings);
      if (socket === opened) connectLater();
    });
  };

  const connectLater = () => {
    if (stopped) return;
    retry = setTimeout(connect, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    socket?.terminate();
  };
}

/** btcd's block notifications: blockconnected and blockdisconnected, and their filtered forms. */
const BLOCK_NOTIFICATION = /^(filtered)?block(dis)?connected$/;

function parse(text: string): { method?: unknown; id?: unknown; error?: unknown } | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
