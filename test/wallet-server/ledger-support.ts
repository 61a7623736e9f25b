// The ledger on real Postgres without the HTTP app, for the tests that drive its statements directly.
import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../../services/wallet-server/src/db/db.js';
import { openDatabase } from '../../services/wallet-server/src/db/open.js';
import { Ledger } from '../../services/wallet-server/src/ledger/index.js';
import { insertUser } from '../../services/wallet-server/src/auth/users.js';
import { createWallet } from '../../services/wallet-server/src/wallets/store.js';
import { newId } from '../../services/wallet-server/src/ids.js';
import { startPostgres } from '../support/infra.js';
import { REGTEST_ADDRESS } from './support.js';

export interface LedgerOnPostgres {
  db: Db;
  ledger: Ledger;
  /** The one user of the database, who owns every wallet `wallet()` makes. */
  userId: string;
  /** A new empty wallet of that user: its id. */
  wallet(): Promise<string>;
}

/** Postgres with a new database `name`, migrated and with one user, around the enclosing describe
 * block's tests (its fields are set once its beforeAll has run). */
export function ledgerOnPostgres(name: string): LedgerOnPostgres {
  let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;
  const fixture = {
    wallet: async () => (await createWallet(fixture.db, fixture.userId, 'w', null)).id,
  } as LedgerOnPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
    fixture.db = await openDatabase({ databaseUrl: await postgres.createDatabase(name) });
    fixture.ledger = new Ledger(fixture.db);
    fixture.userId = newId();
    await insertUser(fixture.db, fixture.userId, `02${'1'.repeat(64)}`, REGTEST_ADDRESS);
  });
  afterAll(async () => {
    await fixture.db?.close();
    await postgres?.stop();
  });
  return fixture;
}
