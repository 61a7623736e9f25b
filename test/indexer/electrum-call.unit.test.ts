// The probe's Electrum call: answered, or refused; and a connection closed before any answer (what a
// kubernetes port-forward does while the indexer in its pod does not listen yet) is an error too,
// so that the probe tries again rather than waiting forever; an answer that is not JSON is an error
// of the call, not of the process.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { electrumCall } from '../../control-plane/src/nodes/indexer/electrum.js';

describe('electrumCall', () => {
  let server: Server | undefined;
  const accepted: Socket[] = [];
  afterEach(async () => {
    for (const socket of accepted.splice(0)) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  const listen = (onConnection: (socket: Socket) => void) =>
    new Promise<number>((resolve) => {
      server = createServer((socket) => {
        accepted.push(socket);
        onConnection(socket);
      }).listen(0, '127.0.0.1', () => {
        resolve((server!.address() as { port: number }).port);
      });
    });

  it('answers what the server answers', async () => {
    const port = await listen((socket) =>
      socket.once('data', () => socket.write(`${JSON.stringify({ id: 0, result: ['reglab-indexer', '1.4'] })}\n`)),
    );
    await expect(electrumCall(`127.0.0.1:${port}`, 'server.version', ['t', '1.4'])).resolves.toEqual([
      'reglab-indexer',
      '1.4',
    ]);
  });

  it('fails when the connection is closed before the answer, rather than waiting', { timeout: 10_000 }, async () => {
    const port = await listen((socket) => socket.end());
    await expect(electrumCall(`127.0.0.1:${port}`, 'server.version', ['t', '1.4'])).rejects.toThrow(
      `127.0.0.1:${port} closed the connection before answering server.version`,
    );
  });

  it('fails on an answer that is not JSON, and the process goes on', async () => {
    const port = await listen((socket) => socket.once('data', () => socket.write('jsonrpc":"2.0","id":0}\n')));
    await expect(electrumCall(`127.0.0.1:${port}`, 'server.version', ['t', '1.4'])).rejects.toThrow(
      `127.0.0.1:${port} answered server.version with what is not JSON: jsonrpc":"2.0","id":0}`,
    );
  });
});
