// A command run in a pod through the API server: an API server that refuses the exec (403, an
// account without the rights) is told as such, not taken for a command that failed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../control-plane/src/runtimes/kubernetes/client.js';
import { execIn } from '../../control-plane/src/runtimes/kubernetes/exec.js';

describe('exec in a pod', () => {
  let server: Server;
  let cluster: Cluster;

  beforeAll(async () => {
    // an API server that refuses every websocket, as one does an account without pods/exec
    server = createServer((_request, response) => response.writeHead(404).end());
    server.on('upgrade', (_request, socket) => socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const config = new KubeConfig();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    config.loadFromOptions({
      clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    cluster = { config, server: url } as Cluster;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("rejects with an Error naming the pod, the API server's refusal and the rights it needs", async () => {
    const refused = await execIn(cluster, { namespace: 'reglab-x', pod: 'chain', container: 'chain' }, [
      'cat',
      '/data/rpc.cert',
    ]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/^exec in reglab-x\/chain refused: .*403.*get and create on pods\/exec/);
  });
});
