// Plain HTTP as a client of a lab service: JSON in and out, a refusal turned into a StepFailure
// that carries the service's status and error code, an unanswered call into one that names the
// service. `localAddress` lets a step act as another machine (a loopback address of its own).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StepFailure } from './failure.js';

export interface HttpCall {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  localAddress?: string;
  /** Named in errors: the lab service, or "the LNURL service". */
  service: string;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** The answer of a call, whatever its status; only a call that got no answer throws. */
export async function send(url: string, call: HttpCall): Promise<HttpAnswer> {
  const target = new URL(url);
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(
      target,
      {
        method: call.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers: {
          accept: 'application/json',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...call.headers,
        },
        signal: call.signal,
        localAddress: call.localAddress,
      },
      resolve,
    );
    outgoing.on('error', (error) =>
      reject(
        call.signal?.aborted
          ? error
          : new StepFailure(
              `${call.service} did not answer ${call.method ?? 'GET'} ${target.pathname}: ${error.message}`,
              { unreachable: call.service },
            ),
      ),
    );
    outgoing.end(payload);
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const isJson = response.headers['content-type']?.includes('json') && text !== '';
  return { status: response.statusCode ?? 0, body: isJson ? JSON.parse(text) : text };
}

/** The answer's body when the status is 2xx; otherwise a StepFailure with the service's own message. */
export async function call(url: string, options: HttpCall): Promise<unknown> {
  const answer = await send(url, options);
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  throw refusal(options.service, answer);
}

export function refusal(service: string, answer: HttpAnswer): StepFailure {
  const error = (answer.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const what =
    error?.message ?? (typeof answer.body === 'string' ? answer.body.slice(0, 300) : JSON.stringify(answer.body));
  return new StepFailure(`${service} answered ${answer.status}${error?.code ? ` ${error.code}` : ''}: ${what}`, {
    status: answer.status,
    code: error?.code,
    body: answer.body,
  });
}
