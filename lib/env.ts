// Configuration from the environment, with errors that name the variable.

/** A TCP port from env.PORT, or `fallback` when unset. */
export function portFromEnv(env: NodeJS.ProcessEnv, fallback: number): number {
  const port = Number(env.PORT ?? fallback);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a TCP port number, not "${env.PORT}"`);
  return port;
}

/** A positive integer from env[name], or `fallback` when unset or empty. */
export function positiveIntEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive whole number, not "${raw}"`);
  return value;
}
