// lab.yaml's services.faucet.trust_proxy: whose X-Forwarded-For the faucet takes as the client's
// address (its per-IP cool-down). Left out, it is this machine's connections (a reverse proxy on it);
// [] is no one's: the client is the TCP peer.
import { isIP } from 'node:net';

/** What the faucet reads besides addresses and CIDRs: proxy-addr's names, and its own `gateway`. */
const NAMES = new Set(['loopback', 'linklocal', 'uniquelocal', 'gateway']);

export const faucetTrustProxySchema = {
  type: 'array',
  items: { type: 'string' },
  description:
    "whose X-Forwarded-For names the client: addresses, CIDRs, 'loopback' or 'gateway' (the lab network's gateway, where this machine's connections reach a container); [] for no one's. Default: this machine's connections",
} as const;

function isCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !address || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

export function checkFaucetTrustProxy(entries: string[]): { path: (string | number)[]; message: string }[] {
  return entries.flatMap((entry, index) =>
    NAMES.has(entry) || isIP(entry) !== 0 || isCidr(entry)
      ? []
      : [
          {
            path: ['services', 'faucet', 'trust_proxy', index],
            message: `"${entry}" is not an address, a CIDR (10.0.0.0/8), loopback, linklocal, uniquelocal or gateway`,
          },
        ],
  );
}
