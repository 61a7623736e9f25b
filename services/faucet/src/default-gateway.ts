// The IPv4 address of this machine's default gateway, from the kernel's routing table. In a
// container on a lab network it is the address the engine gives to connections from the host
// machine (Podman and Docker rewrite the source of what reaches a port published on 127.0.0.1).
import { readFileSync } from 'node:fs';

const ROUTE_TABLE = '/proc/net/route';
/** RTF_UP | RTF_GATEWAY */
const UP_GATEWAY = 0x3;

/** `table` as /proc/net/route gives it: a header line, then Iface, Destination, Gateway, Flags, … in hex. */
export function defaultGatewayIn(table: string): string | undefined {
  for (const line of table.trim().split('\n').slice(1)) {
    const [, destination, gateway, flags] = line.trim().split(/\s+/);
    if (destination !== '00000000' || !gateway || (Number.parseInt(flags ?? '0', 16) & UP_GATEWAY) !== UP_GATEWAY)
      continue;
    // little-endian: 0100590A is 10.89.0.1
    return Buffer.from(gateway, 'hex').reverse().join('.');
  }
  return undefined;
}

export function defaultGateway(): string | undefined {
  try {
    return defaultGatewayIn(readFileSync(ROUTE_TABLE, 'utf8'));
  } catch {
    return undefined;
  }
}
