import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** Errors of a connection that never reached the node (its address may have changed). */
const UNREACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ETIMEDOUT']);

/**
 * Chain nodes' addresses, looked up once per process and kept until a connection to the name fails
 * (its container was started again, perhaps at another address): without this each connection to
 * the node, one per call over HTTP, asked DNS. In a docker lab on
 * Podman the node's name may be answered by aardvark-dns, which drops the queries that come while it
 * reloads (at every start or stop of a container on any network); glibc then waits 5 s for each
 * try, and the lookup, in libuv's thread pool, is waited for even by process.exit: an indexer
 * stopped just after the lab's other containers outlived its 15 s stop timeout and was killed
 * (test/docker/indexer-stop.test.ts). One cache for the process, so that a node's JSON-RPC client
 * and its websocket look its name up once between them.
 */
class NodeAddresses {
  private readonly addresses = new Map<string, LookupAddress[]>();
  /** The callers waiting on a lookup under way, by name: connections made at once share one lookup. */
  private readonly waiting = new Map<
    string,
    ((error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void)[]
  >();

  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const reply = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      const wanted =
        options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      if (!error && wanted.length === 0)
        error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      if (error) {
        if (options.all) callback(error, []);
        else callback(error, '', 0);
      } else if (options.all) callback(null, wanted);
      else callback(null, wanted[0]!.address, wanted[0]!.family);
    };
    const known = this.addresses.get(hostname);
    if (known) {
      process.nextTick(reply, null, known);
      return;
    }
    const waiting = this.waiting.get(hostname);
    if (waiting) {
      waiting.push(reply);
      return;
    }
    this.waiting.set(hostname, [reply]);
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (!error && addresses.length > 0) this.addresses.set(hostname, addresses);
      const replies = this.waiting.get(hostname) ?? [];
      this.waiting.delete(hostname);
      for (const waiter of replies) waiter(error, error ? [] : addresses);
    });
  };

  /** Forgets the address of `hostname` when `error` says a connection to it never reached the node. */
  forgetAfter(hostname: string, error: NodeJS.ErrnoException): void {
    if (error.code === undefined || UNREACHED.has(error.code)) this.addresses.delete(hostname);
  }
}

export const nodeAddresses = new NodeAddresses();
