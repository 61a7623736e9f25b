// The height of the newest block the node's indexer serves: /networkinfo's height. rgb-lib reads
// the chain only through its indexer and does not tell its tip, so the node asks the indexer
// itself: Electrum's blockchain.headers.subscribe (tcp://) or Esplora's /blocks/tip/height (http://).
import { connect } from 'node:net';

const TIMEOUT_MS = 5_000;

export async function indexerTipHeight(indexerUrl: string): Promise<number> {
  const url = new URL(indexerUrl);
  if (url.protocol === 'http:' || url.protocol === 'https:') return esploraTipHeight(indexerUrl);
  if (url.protocol === 'tcp:') return electrumTipHeight(url.hostname, Number(url.port));
  throw new Error(
    `cannot read the chain tip from ${indexerUrl}: only tcp:// (Electrum) and http(s):// (Esplora) indexers are read`,
  );
}

async function esploraTipHeight(baseUrl: string): Promise<number> {
  const response = await fetch(`${baseUrl.replace(/\/$/, '')}/blocks/tip/height`, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`${baseUrl}/blocks/tip/height answered ${response.status}`);
  return Number(await response.text());
}

function electrumTipHeight(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let answer = '';
    socket.setTimeout(TIMEOUT_MS, () =>
      socket.destroy(new Error(`the Electrum indexer at ${host}:${port} did not answer`)),
    );
    socket.once('error', reject);
    socket.once('connect', () =>
      socket.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'blockchain.headers.subscribe', params: [] })}\n`,
      ),
    );
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      const end = answer.indexOf('\n');
      if (end < 0) return;
      socket.end();
      const reply = JSON.parse(answer.slice(0, end)) as { result?: { height: number }; error?: { message?: string } };
      if (reply.result) resolve(reply.result.height);
      else
        reject(
          new Error(
            `the Electrum indexer at ${host}:${port} refused blockchain.headers.subscribe: ${reply.error?.message ?? 'no result'}`,
          ),
        );
    });
  });
}
