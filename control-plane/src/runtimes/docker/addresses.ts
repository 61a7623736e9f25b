// Fixed addresses for a lab's containers on its network. Names are then found in each container's
// /etc/hosts rather than asked of the engine's DNS server: Podman's aardvark-dns drops the queries
// that come while it reloads, which it does at every start and stop of a container, and a dropped
// query costs the asker 5 s (glibc's timeout) or fails its start.

const toNumber = (ip: string) => ip.split('.').reduce((value, part) => value * 256 + Number(part), 0);
const toIp = (value: number) => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');

/**
 * An address for each service in `subnet` (IPv4 CIDR), by the services' sorted names, so every
 * container of the lab computes the same ones; the network's own, first, last and gateway
 * addresses are skipped. Undefined when the subnet is not IPv4 or has no room for them all.
 */
export function labAddresses(subnet: string, gateway: string | undefined, services: string[]): Map<string, string> | undefined {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(subnet);
  if (!match) return undefined;
  const size = 2 ** (32 - Number(match[2]));
  const network = toNumber(match[1]) - (toNumber(match[1]) % size);
  const taken = gateway ? toNumber(gateway) : undefined;
  const free: number[] = [];
  for (let host = network + 2; host < network + size - 1 && free.length < services.length; host++) if (host !== taken) free.push(host);
  if (free.length < services.length) return undefined;
  return new Map([...services].sort().map((service, index) => [service, toIp(free[index])]));
}
