// Calls to the control plane (same origin, with the token if there is one) and to lab services.
import { storedToken } from './token.js';

const JOB_POLL_MS = 400;
const JOB_PATIENCE_MS = 300_000;

/** A refusal or failure in the server's words; `status` is the HTTP status of the answer, 0 when there was none. */
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function errorOf(response) {
  const body = await response.json().catch(() => undefined);
  return new ApiError(response.status, body?.error?.message ?? `${response.status} ${response.statusText}`);
}

/**
 * One request; answers the JSON (or text) body, throws an ApiError with the server's message. The
 * token goes only to the control plane (a path of this origin), never to a lab service's URL.
 */
export async function call(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const token = storedToken();
  if (token && path.startsWith('/')) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, `${path} could not be reached (${error.message})`);
  }
  if (!response.ok) throw await errorOf(response);
  return (response.headers.get('content-type') ?? '').includes('json') ? response.json() : response.text();
}

export const labPath = (lab, rest = '') => `/labs/${encodeURIComponent(lab)}${rest}`;

/**
 * Queues a job and follows it to its end: `onState(state, attempts)` hears each state it passes
 * (waiting, active, …); answers the job's result or throws its error.
 */
export async function runJob(path, body, onState) {
  const queued = await call('POST', path, body);
  onState(queued.state, 0);
  for (const deadline = Date.now() + JOB_PATIENCE_MS; Date.now() < deadline; ) {
    await sleep(JOB_POLL_MS);
    const job = await call('GET', queued.url);
    if (job.state === 'completed') return job.result;
    if (job.state === 'failed') throw new ApiError(200, job.error ?? `job ${queued.job} failed`);
    onState(job.state, job.attempts);
  }
  throw new ApiError(0, `job ${queued.job} is still running; follow it at ${queued.url}`);
}
