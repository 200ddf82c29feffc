import { randomUUID } from 'node:crypto';
import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  silentLogger,
  type DatabaseConfig,
  type InboxStore,
} from '@queuebox/core';
import {
  createFreshDatabase,
  type FreshDatabase,
  httpSource,
  requireService,
} from '@queuebox/testing';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The PostgreSQL store on the reference schema, migrated as QueueBox migrates it.
import { createPostgresInboxStore, runMigrations, tableNamesFrom } from '@queuebox/postgres';
import {
  createHttpIngest,
  inboxMetrics,
  ReceivedHeaders,
  type HttpIngest,
} from '@queuebox/inbox-service';
import { createJsonataTransformer } from '@queuebox/outbox-service';

// inbox-service's ingest on the PostgreSQL store: here in the app's tests because inbox-service
// never depends on an adapter.
const pg = await requireService('postgres', 'inbox-service: ingest on PostgreSQL');

/**
 * The checks every source kind shares, on input that Node's HTTP parser never lets through
 * (a NUL in a header, a half surrogate pair in a header value) but a broker hands over as it is.
 * The ingest function gets the headers as a broker source would pass them, and the real store
 * shows what each check prevents: a 500 for a NUL, a silently altered key for a half pair.
 */
describe.skipIf(!pg.available)('ingest checks on PostgreSQL', () => {
  let db: FreshDatabase;
  let store: InboxStore;
  let ingest: HttpIngest;

  const deps = () => ({
    store,
    transformer: createJsonataTransformer(),
    logger: silentLogger,
    metrics: inboxMetrics(new Registry()),
    clock: { now: () => new Date() },
    newId: randomUUID,
  });

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
    await runMigrations(db.sql, { logger: silentLogger });
    const names = tableNamesFrom({
      outboxTableName: 'outbox',
      inboxTableName: 'inbox',
      columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
    } as DatabaseConfig);
    store = createPostgresInboxStore(db.sql, names, { now: () => new Date() });
    ingest = createHttpIngest(
      'orders',
      httpSource({ idempotencyKeyHeader: 'Idempotency-Key', idempotencyKeyPath: ['$.id'] }),
      deps(),
    );
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(async () => {
    await db.sql`DELETE FROM inbox`;
  });

  const handle = (headers: [string, string][], body = '{"id":"o-1"}') =>
    ingest.handle({
      headers: new ReceivedHeaders(headers),
      body: new TextEncoder().encode(body),
      receivedAt: new Date(),
    });
  const rows = () => db.sql<{ key: string }[]>`SELECT idempotency_key AS key FROM inbox`;

  it('refuses a header whose value or name holds a NUL, naming it, and stores nothing', async () => {
    expect(await handle([['X-Trace', 'a\u0000b']])).toMatchObject({
      status: 400,
      body: {
        error: "The header 'X-Trace' holds a NUL character (U+0000), which cannot be stored.",
      },
    });
    expect(await handle([['x-\u0000', 'v']])).toMatchObject({ status: 400 });
    expect(await rows()).toEqual([]);
  });

  it('refuses a key with half a surrogate pair instead of storing U+FFFD in its place', async () => {
    // A key expression can cut a pair in two; JSON.parse never yields a half pair from a body
    // the checks accepted, and Node reads header bytes as Latin-1.
    const cutting = createHttpIngest(
      'cut',
      httpSource({ idempotencyKeyExpression: '$replace(id, /\\uDE00/, "")' }),
      deps(),
    );
    const request = (body: string) => ({
      headers: new ReceivedHeaders([]),
      body: new TextEncoder().encode(body),
      receivedAt: new Date(),
    });
    expect(await cutting.handle(request('{"id": "k-😀"}'))).toMatchObject({
      status: 400,
      body: {
        error:
          'The idempotency key holds half of a UTF-16 surrogate pair without the other half, which cannot be stored.',
      },
    });
    expect(await rows()).toEqual([]);
    // A whole pair is stored as sent.
    expect(await handle([['Idempotency-Key', 'k-\ud83d\ude00']])).toMatchObject({ status: 202 });
    expect((await rows()).map((row) => row.key)).toEqual(['k-😀']);
  });
});
