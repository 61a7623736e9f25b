// Not part of the suite: interrupt.test.ts runs this file in a vitest of its own, then interrupts
// that run while the lab and the servers below are up.
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { startInfra } from '../wallet-server/support.js';
import { startRegtest } from '../support/regtest.js';

it('holds a lab, Postgres and Redis until the run is interrupted', async () => {
  await Promise.all([startRegtest({ lnd: ['alice'] }), startInfra()]);
  writeFileSync(process.env.REGLAB_FIXTURE_READY!, process.env.REGLAB_PROCESS_REGISTRY!);
  await new Promise(() => undefined);
}, 600_000);
