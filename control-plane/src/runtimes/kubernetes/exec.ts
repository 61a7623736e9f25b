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

/**
 * The websocket's refusal as an Error saying where: what the client rejects with is the websocket's
 * error event, no Error ("Unexpected server response: 403"), which its callers would otherwise take
 * for a command that failed (a file not there yet).
 */
export function execRefusal(target: ExecTarget, refusal: unknown): Error {
  if (refusal instanceof Error) return refusal;
  const said = (refusal as { message?: unknown } | undefined)?.message;
  const message = typeof said === 'string' ? said : String(refusal);
  const hint = / 403\b/.test(message)
    ? " (this account may not exec in the namespace's pods: it needs get and create on pods/exec)"
    : '';
  return new Error(`exec in ${target.namespace}/${target.pod} refused: ${message}${hint}`, { cause: refusal });
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
          socket.on('error', (error) => reject(execRefusal(target, error)));
        },
        (refusal: unknown) => reject(execRefusal(target, refusal)),
      );
  });
}

/** A stream that keeps what is written to it in `into`. */
function collect(into: Buffer[]): Writable {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => into.push(chunk));
  return stream;
}
