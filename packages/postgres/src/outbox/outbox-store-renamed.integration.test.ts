import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { renamedSchema } from '../../test/outbox-schema.js';
import { outboxStoreContract } from '../../test/outbox-store-contract.js';

const pg = await requireService('postgres', 'postgres: outbox store (renamed tables and columns)');

describe.skipIf(!pg.available)(`outbox store on PostgreSQL: ${renamedSchema.label}`, () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    await renamedSchema.create(db.sql);
  });

  afterAll(async () => {
    await db?.drop();
  });

  outboxStoreContract(() => ({ sql: db.sql, url: db.url, tables: renamedSchema.tables }));
});
