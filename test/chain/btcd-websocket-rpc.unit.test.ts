// The JSON-RPC client's websocket transport to btcd, against a server that answers its upgrade as
// a misbehaving btcd could: what a refused connection and a cut answer leave to the caller.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonRpcClient } from '../../lib/chain/rpc.js';

/** A server that answers each connection's first request with `answer`, then does `then` to the connection. */
async function answering(answer: string, then: (socket: Socket) => void): Promise<Server> {
  const server = createServer((socket) => {
    socket.once('data', () => {
      socket.write(answer);
      then(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const clientOf = (server: Server) =>
  new JsonRpcClient({
    kind: 'btcd',
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    user: 'lab',
    password: 'wrong',
  });

describe('btcd JSON-RPC over its websocket', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("gives a refusal's status and text to the call, as over HTTP", async () => {
    const body = '401 Unauthorized.\n';
    server = await answering(
      `HTTP/1.1 401 Unauthorized\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      (socket) => socket.end(),
    );
    await expect(clientOf(server).call('getblockcount')).rejects.toThrow('btcd answered 401: 401 Unauthorized.');
  });

  it('ends the call with the connection when it is cut in the middle of a refusal, not at its time-out', async () => {
    server = await answering('HTTP/1.1 401 Unauthorized\r\nContent-Length: 100\r\n\r\n401 Unauth', (socket) =>
      socket.destroy(),
    );
    await expect(clientOf(server).call('getblockcount')).rejects.toThrow(
      /^btcd at http:\/\/127\.0\.0\.1:\d+ cut its answer 401 short \(aborted\)$/,
    );
  });
});
