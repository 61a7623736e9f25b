// A loopback TCP proxy that measures how long its clients wait on the server behind it: from a
// client's bytes, sent while nothing is outstanding on that connection, to the server's next bytes.
// Request/response protocols (Electrum's lines, HTTP/1.1 without pipelining) read as time spent in
// the server; summed over connections.
import net from 'node:net';

export interface WaitingProxy {
  port: number;
  /** Milliseconds clients waited since the last call, summed over connections. */
  takeWaitedMs(): number;
  close(): Promise<void>;
}

export async function startWaitingProxy(target: { host: string; port: number }): Promise<WaitingProxy> {
  let waited = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    let askedAt: number | undefined;
    client.on('data', (chunk) => {
      askedAt ??= performance.now();
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (askedAt !== undefined) waited += performance.now() - askedAt;
      askedAt = undefined;
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    takeWaitedMs() {
      const value = waited;
      waited = 0;
      return value;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
