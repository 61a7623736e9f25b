// Kept apart from the runtime (and dockerode): the API maps errors with it in every control plane,
// whether or not a docker lab ever runs.

/**
 * What the container engine answered, when `error` is its refusal of an API call (dockerode's
 * errors carry the HTTP status and the engine's body): the engine's own message.
 */
export function engineRefusal(error: unknown): string | undefined {
  if (
    !(error instanceof Error) ||
    typeof (error as { statusCode?: unknown }).statusCode !== 'number' ||
    !('json' in error)
  )
    return undefined;
  const body = (error as { json?: { message?: unknown } | null }).json;
  const message = typeof body?.message === 'string' ? body.message : error.message;
  return `${message.trim()} (HTTP ${(error as unknown as { statusCode: number }).statusCode})`;
}
