// A command run in a service's container through the API server (kubectl exec): a file read, a
// signal sent, a snapshot's archive streamed out of a claim or into it.
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import type { Cluster } from './client.js';

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
}

export interface ExecResult {
  /** Its output, unless `stdout` took it. */
  stdout: Buffer;
  stderr: string;
  code: number;
}

export interface ExecOptions {
  /** Fed to the command's standard input, then closed. */
  stdin?: Readable;
  /** Where its output goes instead of the answer (a large archive). */
  stdout?: Writable;
}

/**
 * The exit code the API server's final Status gives (0 for Success), or undefined when the command
 * did not run to an exit: the kubelet could not run it (no such container yet, the runtime refused).
 */
export function exitCodeOf(status: V1Status): number | undefined {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((candidate) => candidate.reason === 'ExitCode');
  return cause?.message !== undefined ? Number(cause.message) : undefined;
}

/** Runs `command` in the container and answers its output and exit code once it has ended. */
export async function execIn(
  cluster: Cluster,
  target: ExecTarget,
  command: string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const { Exec } = await import('@kubernetes/client-node');
  const chunks: Buffer[] = [];
  const errors: Buffer[] = [];
  const stdout = options.stdout ?? collect(chunks);
  const stderr = collect(errors);
  return new Promise<ExecResult>((resolve, reject) => {
    let status: V1Status | undefined;
    const finish = () => {
      if (!status)
        return reject(
          new Error(
            `${command[0]} in ${target.namespace}/${target.pod} ended without an exit status${errors.length > 0 ? `: ${Buffer.concat(errors).toString('utf8').trim()}` : ''}`,
          ),
        );
      const code = exitCodeOf(status);
      if (code === undefined)
        return reject(
          new Error(
            `${command[0]} could not run in ${target.namespace}/${target.pod}: ${status.message ?? status.reason ?? 'the exec failed'}`,
          ),
        );
      resolve({ stdout: Buffer.concat(chunks), stderr: Buffer.concat(errors).toString('utf8'), code });
    };
    new Exec(cluster.config)
      .exec(
        target.namespace,
        target.pod,
        target.container,
        command,
        stdout,
        stderr,
        options.stdin ?? null,
        false,
        (answer) => {
          status = answer;
        },
      )
      .then(
        (socket) => {
          socket.on('close', () => setImmediate(finish));
          socket.on('error', (error) => reject(execFailure(target, command, error)));
        },
        (error: unknown) => reject(execFailure(target, command, error)),
      );
  });
}

/**
 * Why an exec did not run, as an Error: the client rejects a refused upgrade with the websocket's
 * error event (the API server's answer in its message: the pod has no such container yet, ...).
 */
function execFailure(target: ExecTarget, command: string[], error: unknown): Error {
  if (error instanceof Error) return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  return new Error(
    `${command[0]} could not run in ${target.namespace}/${target.pod}: ${typeof message === 'string' ? message : String(error)}`,
    { cause: error },
  );
}

/** A stream that keeps what is written to it in `into`. */
function collect(into: Buffer[]): Writable {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => into.push(chunk));
  return stream;
}
