import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports freePort handed out, by any process on this machine: the kernel counts a port free until a
 * server binds it, and a lab's services bind theirs one after another, seconds after they were
 * chosen; two labs brought up at once (two control planes, test files run side by side) would
 * otherwise be handed the same port. A reservation is a file named after the port, made with
 * O_EXCL, and lapses after PORT_RESERVED_MS: by then its server listens on it, or never will.
 */
export const PORT_RESERVATIONS = join(tmpdir(), 'reglab-port-reservations');
export const PORT_RESERVED_MS = 120_000;
let prunedOnce = false;

/** Asks the kernel for a free TCP port on 127.0.0.1 that no other reglab process was handed lately. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await unboundPort();
    if (reservePort(port)) return port;
  }
}

/** A port the kernel counts free now. */
function unboundPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port of a probe socket'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * Takes the reservation of `port`: false when a live one is held (by any process, this one too).
 * Where no reservation can be written (a folder of another user), the port is taken unreserved.
 */
export function reservePort(port: number): boolean {
  try {
    prepareReservations();
  } catch {
    return true;
  }
  const file = join(PORT_RESERVATIONS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
  }
  if (!lapsed(file)) return false;
  // of two processes taking over the same lapsed reservation, one renames it away, the other finds it gone
  const taken = `${file}.${process.pid}`;
  try {
    renameSync(file, taken);
  } catch {
    return false;
  }
  rmSync(taken, { force: true });
  return reservePort(port);
}

function prepareReservations(): void {
  if (prunedOnce) return;
  mkdirSync(PORT_RESERVATIONS, { recursive: true });
  // every user's labs share it, as they share the ports
  if (statSync(PORT_RESERVATIONS).mode % 0o10000 !== 0o1777) chmodSync(PORT_RESERVATIONS, 0o1777);
  for (const entry of readdirSync(PORT_RESERVATIONS)) {
    const file = join(PORT_RESERVATIONS, entry);
    if (lapsed(file)) rmSync(file, { force: true });
  }
  prunedOnce = true;
}

function lapsed(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > PORT_RESERVED_MS;
  } catch {
    return false;
  }
}

/** Free ports, distinct from each other and from `taken`. */
export async function freePorts(count: number, taken: Set<number> = new Set()): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!taken.has(port) && !ports.includes(port)) ports.push(port);
  }
  return ports;
}

/** True when something accepts TCP connections on host:port. */
export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}
