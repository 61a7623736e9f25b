import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, PORT_RESERVATIONS, PORT_RESERVED_MS, reservePort } from '../../control-plane/src/util/ports.js';

// ports below 1024, which the kernel never hands out for port 0: no lab on this machine meets them
const PORT = 1000 + (process.pid % 23);
const reservation = (port: number) => join(PORT_RESERVATIONS, String(port));

describe('port reservations', () => {
  afterEach(() => {
    rmSync(reservation(PORT), { force: true });
  });

  it('refuses a port reserved by another process until the reservation lapses', () => {
    const other = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { reservePort } from './control-plane/src/util/ports.ts'; process.stdout.write(String(reservePort(${PORT})));`,
      ],
      { encoding: 'utf8' },
    );
    expect(other).toBe('true');
    expect(reservePort(PORT)).toBe(false);

    const lapsed = (Date.now() - PORT_RESERVED_MS - 1_000) / 1_000;
    utimesSync(reservation(PORT), lapsed, lapsed);
    expect(reservePort(PORT)).toBe(true);
    expect(reservePort(PORT), 'the reservation just taken').toBe(false);
  });

  it('hands out each port once while its reservation lasts', async () => {
    const ports = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(existsSync(reservation(port))).toBe(true);
      rmSync(reservation(port), { force: true });
    }
  });
});
