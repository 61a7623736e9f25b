// A bare newline-delimited JSON-RPC client, for what the npm client hides (batches, raw errors,
// notifications as they arrive).
import { connect, type Socket } from 'node:net';

export interface LineClient {
  request(method: string, params?: unknown[]): Promise<unknown>;
  /** Sends one line as is and resolves with the next response line (parsed). */
  raw(line: string): Promise<unknown>;
  notifications: { method: string; params: unknown[] }[];
  socket: Socket;
  close(): void;
}

export async function connectLineClient(port: number): Promise<LineClient> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.setEncoding('utf8');
  const waiting: ((value: unknown) => void)[] = [];
  const notifications: LineClient['notifications'] = [];
  let buffered = '';
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      if (!Array.isArray(message) && message.method) notifications.push(message);
      else waiting.shift()?.(message);
    }
  });
  let id = 0;
  const raw = (line: string) => {
    const response = new Promise<unknown>((resolve) => waiting.push(resolve));
    socket.write(`${line}\n`);
    return response;
  };
  return {
    raw,
    notifications,
    socket,
    async request(method, params = []) {
      const response = (await raw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))) as {
        result?: unknown;
        error?: { message: string };
      };
      if (response.error) throw new Error(response.error.message);
      return response.result;
    },
    close: () => socket.destroy(),
  };
}
