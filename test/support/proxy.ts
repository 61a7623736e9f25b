// A loopback proxy a test can cut and restore, to take a dependency away from the app and give it
// back on the same address without restarting the real server: a TCP port, or a Unix socket (a
// container engine's).
import { rmSync } from 'node:fs';
import net from 'node:net';

export interface Proxy {
  /** What clients have sent through it so far (its last 256 KiB): a test waits for a request it knows the app makes. */
  sent(): string;
  /** How many connections clients have opened through it so far, whether the target took them or not. */
  connections(): number;
  /** Drops every open connection and stops listening: a new one is refused (a socket's file is gone). */
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export interface TcpProxy extends Proxy {
  port: number;
}

const SENT_KEPT = 256 * 1024;

function proxyTo(target: net.NetConnectOpts) {
  const sockets = new Set<net.Socket>();
  let sent = '';
  let connections = 0;
  let server: net.Server | undefined;
  const listen = (at: net.ListenOptions) =>
    new Promise<net.Server>((resolve, reject) => {
      const next = net.createServer((client) => {
        connections += 1;
        const upstream = net.connect(target);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.on('data', (chunk: Buffer) => {
          sent = (sent + chunk.toString('latin1')).slice(-SENT_KEPT);
        });
        client.pipe(upstream).pipe(client);
      });
      next.once('error', reject);
      next.listen(at, () => resolve((server = next)));
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server?.listening) return resolve();
      server.close(() => resolve());
    });
  return { listen, stop, sent: () => sent, connections: () => connections };
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const proxy = proxyTo({ port: targetPort, host: '127.0.0.1' });
  const { port } = (await proxy.listen({ port: 0, host: '127.0.0.1' })).address() as net.AddressInfo;
  return {
    port,
    sent: proxy.sent,
    connections: proxy.connections,
    cut: proxy.stop,
    restore: async () => {
      await proxy.listen({ port, host: '127.0.0.1' });
    },
    close: proxy.stop,
  };
}

/** Listens on the Unix socket `path` and passes everything to the one at `targetPath`. */
export async function startSocketProxy(targetPath: string, path: string): Promise<Proxy> {
  const proxy = proxyTo({ path: targetPath });
  const listen = async () => {
    rmSync(path, { force: true });
    await proxy.listen({ path });
  };
  await listen();
  return { sent: proxy.sent, connections: proxy.connections, cut: proxy.stop, restore: listen, close: proxy.stop };
}
