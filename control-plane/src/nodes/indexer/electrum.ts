import { createConnection } from 'node:net';

/**
 * One JSON-RPC call on a fresh connection (newline-delimited, as the Electrum protocol is). A
 * connection closed before the answer is an error too: a port-forward (kubernetes) accepts the
 * connection, then closes it while the server in the pod does not listen yet.
 */
export function electrumCall(hostPort: string, method: string, params: unknown[]): Promise<unknown> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port: Number(port) });
    let received = '';
    socket.setTimeout(2_000, () => socket.destroy(new Error(`no answer to ${method} from ${hostPort}`)));
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`${hostPort} closed the connection before answering ${method}`)));
    socket.on('connect', () => socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method, params })}\n`));
    socket.on('data', (data) => {
      received += data.toString();
      if (!received.includes('\n')) return;
      socket.destroy();
      const line = received.slice(0, received.indexOf('\n'));
      let answer: { result?: unknown; error?: { message?: string } };
      try {
        answer = JSON.parse(line);
      } catch {
        // thrown here, it would end the whole process: the caller is told instead
        reject(new Error(`${hostPort} answered ${method} with what is not JSON: ${line.slice(0, 80)}`));
        return;
      }
      if (answer.error) reject(new Error(`${method}: ${answer.error.message ?? 'error'}`));
      else resolve(answer.result);
    });
  });
}

/** The height of the newest block an Electrum server serves. */
export async function electrumTipHeight(hostPort: string): Promise<number> {
  return ((await electrumCall(hostPort, 'blockchain.headers.subscribe', [])) as { height: number }).height;
}
