// Fixed addresses for a lab's containers on its network. Names are then found in each container's
// /etc/hosts rather than asked of the engine's DNS server: Podman's aardvark-dns drops the queries
// that come while it reloads, which it does at every start and stop of a container, and a dropped
// query costs the asker 5 s (glibc's timeout) or fails its start. Each address comes with a MAC
// address made from it (macAddressOf).

const toNumber = (ip: string) => ip.split('.').reduce((value, part) => value * 256 + Number(part), 0);
const toIp = (value: number) => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');

/**
 * An address for each service in `subnet` (IPv4 CIDR), by the services' sorted names, so every
 * container of the lab computes the same ones; the network's own, first, last and gateway
 * addresses are skipped. Undefined when the subnet is not IPv4 or has no room for them all.
 */
export function labAddresses(
  subnet: string,
  gateway: string | undefined,
  services: string[],
): Map<string, string> | undefined {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(subnet);
  if (!match) return undefined;
  const size = 2 ** (32 - Number(match[2]));
  const network = toNumber(match[1]) - (toNumber(match[1]) % size);
  const taken = gateway ? toNumber(gateway) : undefined;
  const free: number[] = [];
  for (let host = network + 2; host < network + size - 1 && free.length < services.length; host++)
    if (host !== taken) free.push(host);
  if (free.length < services.length) return undefined;
  return new Map([...services].sort().map((service, index) => [service, toIp(free[index])]));
}

/**
 * The MAC address of the container at `ipv4`: 02:42 (locally administered, unicast, as Docker's
 * own) then the address's four bytes. A service's container made anew (a restart, a snapshot saved
 * or restored) keeps its address; with a new random MAC, as Podman gives, this machine and the
 * other containers would go on sending to the old one for as long as their neighbour entry stays
 * reachable (15 to 45 s on Linux): a Redis or PostgreSQL the control plane then could not reach
 * held a snapshot save that long.
 */
export function macAddressOf(ipv4: string): string {
  return ['02', '42', ...ipv4.split('.').map((part) => Number(part).toString(16).padStart(2, '0'))].join(':');
}
