// How this machine reaches a kubernetes lab's services: each of a service's ports listens on
// 127.0.0.1:<its host port> here (on every interface for a lab service of a control plane open to
// the network), and each connection accepted is carried to the service's pod through the API
// server's port-forward (a websocket, v4.channel.k8s.io: channel 0 the data, channel 1 the errors,
// each opened by the port's two bytes). It needs nothing but the kubeconfig: no route to the
// cluster's nodes or pods, which a laptop usually lacks.
import { createServer, type Server, type Socket } from 'node:net';
import WebSocket from 'ws';
import type { Cluster } from './client.js';

export interface ForwardedPort {
  pod: string;
  containerPort: number;
  hostPort: number;
  /** Listen on every interface, not only on loopback. */
  public?: boolean;
}

const PROTOCOL = 'v4.channel.k8s.io';
const DATA = 0;
const ERROR = 1;

export class PortForwards {
  /** Listening servers by host port. */
  private readonly servers = new Map<number, { server: Server; forwarded: ForwardedPort }>();
  private readonly connections = new Set<Socket>();

  constructor(
    private readonly cluster: Cluster,
    private readonly namespace: string,
  ) {}

  /** Listens for `port` unless it already does (for the same pod and port); resolves once listening. */
  async open(port: ForwardedPort): Promise<void> {
    const known = this.servers.get(port.hostPort);
    if (known && known.forwarded.pod === port.pod && known.forwarded.containerPort === port.containerPort) return;
    if (known) await this.closeOne(port.hostPort);
    const server = createServer((socket) => this.carry(socket, port));
    this.servers.set(port.hostPort, { server, forwarded: port });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port.hostPort, port.public ? '0.0.0.0' : '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      this.servers.delete(port.hostPort);
      throw new Error(`cannot listen on port ${port.hostPort} for ${port.pod}: ${(error as Error).message}`);
    });
    server.unref(); // a control plane (or a test) ends without closing them
  }

  /** Stops listening, and ends every connection carried. */
  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await Promise.all([...this.servers.keys()].map((port) => this.closeOne(port)));
  }

  private async closeOne(hostPort: number): Promise<void> {
    const entry = this.servers.get(hostPort);
    this.servers.delete(hostPort);
    if (entry) await new Promise<void>((resolve) => entry.server.close(() => resolve()));
  }

  /** One connection, carried over a websocket of its own until either side closes. */
  private carry(socket: Socket, port: ForwardedPort): void {
    socket.pause();
    this.connections.add(socket);
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', () => undefined); // the client went away: the websocket is closed below
    const options: Record<string, unknown> = {};
    void this.cluster.config.applyToHTTPSOptions(options).then(
      () => {
        const url = `${this.cluster.server.replace(/^http/, 'ws')}/api/v1/namespaces/${this.namespace}/pods/${port.pod}/portforward?ports=${port.containerPort}`;
        // every handler is set before the websocket opens: the pod's first frames can come with the upgrade's answer
        pipe(socket, new WebSocket(url, [PROTOCOL], options));
      },
      () => socket.destroy(),
    );
  }
}

/**
 * Carries bytes both ways. Each channel from the pod opens with the port's number (two bytes), which
 * the kubelet writes while the connection's data may already flow: what this side sends waits until
 * the data channel has opened, so that nothing from the pod can come before its port's number.
 */
function pipe(socket: Socket, ws: WebSocket): void {
  const opened = [false, false];
  ws.on('message', (message: Buffer) => {
    const channel = message[0];
    let payload = message.subarray(1);
    if (channel !== DATA && channel !== ERROR) return;
    if (!opened[channel]) {
      opened[channel] = true;
      payload = payload.subarray(2);
      if (channel === DATA) socket.resume();
    }
    if (payload.length === 0) return;
    if (channel === DATA) socket.write(payload);
    else socket.destroy(new Error(payload.toString('utf8'))); // the kubelet could not reach the port in the pod
  });
  ws.on('close', () => socket.end());
  // refused (the pod is gone, or the API server does not answer): the client sees its connection reset
  ws.on('error', () => socket.destroy());
  ws.on('unexpected-response', () => {
    ws.terminate();
    socket.destroy();
  });
  socket.on('data', (chunk: Buffer) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(Buffer.concat([Buffer.from([DATA]), chunk]));
  });
  socket.on('end', () => ws.close());
  socket.on('error', () => ws.terminate());
  socket.on('close', () => ws.readyState === WebSocket.OPEN && ws.close());
}
