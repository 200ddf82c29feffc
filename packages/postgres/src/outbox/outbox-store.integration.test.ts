import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { defaultSchema } from '../../test/outbox-schema.js';
import { outboxStoreContract } from '../../test/outbox-store-contract.js';

const pg = await requireService('postgres', 'postgres: outbox store (default tables)');

describe.skipIf(!pg.available)(`outbox store on PostgreSQL: ${defaultSchema.label}`, () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    await defaultSchema.create(db.sql);
  });

  afterAll(async () => {
    await db?.drop();
  });

  outboxStoreContract(() => ({ sql: db.sql, url: db.url, tables: defaultSchema.tables }));
});
