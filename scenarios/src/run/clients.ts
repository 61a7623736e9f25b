// Simulated client machines: each name gets a loopback address of its own (127.a.b.c) for one
// run, so per-IP limits (the faucet's cool-down) see different machines, and a second run of the
// same scenario comes from new machines.
import { randomInt } from 'node:crypto';

const DEFAULT_CLIENT = 'default';

export class ClientAddresses {
  private readonly prefix = `127.${randomInt(1, 255)}.${randomInt(0, 256)}`;
  private readonly addresses = new Map<string, string>();

  address(client = DEFAULT_CLIENT): string {
    let address = this.addresses.get(client);
    if (!address) {
      if (this.addresses.size >= 254) throw new Error('a run simulates at most 254 client machines');
      address = `${this.prefix}.${this.addresses.size + 1}`;
      this.addresses.set(client, address);
    }
    return address;
  }
}
