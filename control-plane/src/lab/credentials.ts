import type { CredentialStore } from '../nodes/types.js';
import { ownValue } from '../util/own.js';

/**
 * Secrets the lab collects as services come up (certificates, macaroons), by service, kept in the
 * lab's state: a control plane started again knows them before it can read them again (its
 * container engine not answering).
 */
export class Credentials implements CredentialStore {
  constructor(private readonly byService: Record<string, Record<string, string>>) {}

  /** Keeps the stored object when the values are the same, so connections made from it are kept too. */
  set(service: string, values: Record<string, string>): void {
    const known = ownValue(this.byService, service);
    if (known && JSON.stringify(known) === JSON.stringify(values)) return;
    this.byService[service] = values;
  }

  get(service: string): Record<string, string> | undefined {
    return ownValue(this.byService, service);
  }

  require(service: string, key: string): string {
    const values = ownValue(this.byService, service);
    const value = values && ownValue(values, key);
    if (value === undefined)
      throw new Error(`${key} of ${service} is not known yet (it is read when ${service} is ready)`);
    return value;
  }
}
