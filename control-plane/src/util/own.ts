/**
 * What `record` holds under `key` itself, never what its prototype gives: a name from a request
 * (`/labs/default/services/__proto__/stop`) must not reach `Object.prototype` or `constructor`.
 */
export function ownValue<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
