/**
 * What the plain consumers beside the broker sources (mq-src-plain, kf-src-plain) share: they
 * store through QueueBox's own inbox store on the migrated scenario database, and report the
 * same figures, read back from the rows they stored.
 */
import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  silentLogger,
  systemClock,
} from '@queuebox/core';
import { createPostgresInboxStore, runMigrations, tableNamesFrom } from '@queuebox/postgres';
import { storedSpan } from './broker-run.mjs';
import { round, sleep } from './util.mjs';

/** Migrates the scenario database and returns QueueBox's inbox store on it. */
export async function plainInboxStore(sql) {
  await runMigrations(sql, { logger: silentLogger });
  const tables = tableNamesFrom({
    outboxTableName: 'outbox',
    inboxTableName: 'inbox',
    columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
  });
  return createPostgresInboxStore(sql, tables, systemClock);
}

/**
 * The figures of a consumer that has stored its `rows` messages: timed by the rows, as the
 * QueueBox source is (storedSpan), with what was lost or stored twice.
 */
export async function storedFigures(sql, rows, skip = 0) {
  await sleep(500);
  const [count] =
    await sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys from inbox`;
  const seconds = await storedSpan(sql, 'inbox', skip);
  return {
    storedPerSecond: round((rows - skip) / seconds, 0),
    ...(skip > 0 ? { warmRows: skip, allRowsPerSecond: round(rows / (await storedSpan(sql)), 0) } : {}),
    firstToLastSeconds: round(seconds, 2),
    stored: count.n,
    lost: Math.max(0, rows - count.keys),
    storedTwice: count.n - count.keys,
  };
}
