import type { CredentialStore } from '../nodes/types.js';

/** Secrets the lab collects as services come up (certificates, macaroons), by service. */
export class Credentials implements CredentialStore {
  private readonly byService = new Map<string, Record<string, string>>();

  /** Keeps the stored object when the values are the same, so connections made from it are kept too. */
  set(service: string, values: Record<string, string>): void {
    const known = this.byService.get(service);
    if (known && JSON.stringify(known) === JSON.stringify(values)) return;
    this.byService.set(service, values);
  }

  get(service: string): Record<string, string> | undefined {
    return this.byService.get(service);
  }

  require(service: string, key: string): string {
    const value = this.byService.get(service)?.[key];
    if (value === undefined) throw new Error(`${key} of ${service} is not known yet (it is read when ${service} is ready)`);
    return value;
  }
}
