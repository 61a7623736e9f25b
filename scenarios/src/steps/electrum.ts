// One Electrum-protocol call over TCP: newline-delimited JSON-RPC 2.0, as Electrum wallets speak it.
import { connect } from 'node:net';
import { StepFailure } from './failure.js';

export interface ElectrumServer {
  service: string;
  host: string;
  port: number;
}

export function electrumCall(
  server: ElectrumServer,
  method: string,
  params: unknown[],
  signal?: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port, signal });
    let buffer = '';
    const finish = (outcome: () => void) => {
      socket.destroy();
      outcome();
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      const answer = JSON.parse(buffer.slice(0, end)) as {
        result?: unknown;
        error?: { code?: number; message?: string };
      };
      finish(() =>
        answer.error
          ? reject(
              new StepFailure(
                `the Electrum server refused ${method}: ${answer.error.message ?? JSON.stringify(answer.error)}`,
                { code: 'ELECTRUM_ERROR', body: answer.error },
              ),
            )
          : resolve(answer.result ?? null),
      );
    });
    socket.on('error', (error) =>
      finish(() =>
        reject(
          signal?.aborted
            ? error
            : new StepFailure(
                `${server.service} (Electrum at ${server.host}:${server.port}) did not answer: ${error.message}`,
                { unreachable: server.service },
              ),
        ),
      ),
    );
    socket.on('end', () =>
      finish(() =>
        reject(
          new StepFailure(`${server.service} closed the connection without answering ${method}`, {
            unreachable: server.service,
          }),
        ),
      ),
    );
  });
}
