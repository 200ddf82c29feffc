/**
 * What the outbox's own SQL costs the database per message, measured where load disturbs it
 * least: the CPU time of the PostgreSQL backend that runs the statement (/proc/<pid>/stat, the
 * database on this machine) and the WAL it writes (pg_current_wal_insert_lsn), per row. A fresh
 * database migrated by the tree's @queuebox/postgres gets `--rows` pending rows without a key,
 * then the store's own claim and fenced `sent` completion run in batches of `--batch`, as
 * outbox-work.mjs does beside the plain clients, with the payload at `--body-bytes` (default 1 KiB
 * of JSON) and again at 16 bytes, so the share of the payload's copies shows. `--toast` runs the
 * 1 KiB case a third time with the payload kept out of line (`STORAGE EXTERNAL`,
 * `toast_tuple_target` 128): an experiment, no migration of QueueBox does it.
 *
 * `--narrow-key-index` runs it once more with idx_outbox_key_sequence limited to rows that have a
 * key (the head tests never read a row without one): another experiment.
 *
 *   node bench/src/outbox/statement-cost.mjs [--rows 20000] [--batch 100] [--toast]
 *        [--narrow-key-index]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS, silentLogger, systemClock } from '@queuebox/core';
import { createPostgresOutboxStore, runMigrations, tableNamesFrom } from '@queuebox/postgres';
import { connect, withDatabase } from '../lib/pg.mjs';
import { loadOutbox } from './load.mjs';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '100' },
    'body-bytes': { type: 'string', default: '1024' },
    toast: { type: 'boolean', default: false },
    'narrow-key-index': { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const batch = Number(values.batch);
const TICK_US = 1e6 / 100; // USER_HZ

const cpuUs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
};

async function measure(bodyBytes, toast = false, narrow = false) {
  return withDatabase('qb_stmt', false, async (database) => {
    const sql = connect(database, { max: 1 });
    try {
      await runMigrations(sql, { logger: silentLogger });
      if (narrow) {
        await sql`drop index idx_outbox_key_sequence`;
        await sql`create index idx_outbox_key_sequence on outbox (key, sequence) where state in ('pending', 'processing') and key is not null and key <> ''`;
      }
      if (toast) {
        await sql`alter table outbox alter column payload set storage external`;
        await sql`alter table outbox set (toast_tuple_target = 128)`;
      }
      const filler = 'x'.repeat(Math.max(0, bodyBytes - 20));
      await loadOutbox(sql, { rows, keys: 0, batch: 1000, payloads: { text: (i) => JSON.stringify({ i, f: filler }) } });
      await sql`checkpoint`;
      const tables = tableNamesFrom({
        outboxTableName: 'outbox',
        inboxTableName: 'inbox',
        columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
      });
      const store = createPostgresOutboxStore(sql, tables, systemClock);
      const [{ pid }] = await sql`select pg_backend_pid() as pid`;
      const lsn = async () => (await sql`select pg_current_wal_insert_lsn()::text as l`)[0].l;
      const walBytes = async (from, to) => Number((await sql`select pg_wal_lsn_diff(${to}, ${from})::bigint as d`)[0].d);
      const cost = { claim: { cpu: 0, wal: 0 }, complete: { cpu: 0, wal: 0 } };
      let done = 0;
      for (;;) {
        let c0 = cpuUs(pid);
        let l0 = await lsn();
        const claimed = await store.claim(batch, 60_000);
        let l1 = await lsn();
        cost.claim.cpu += cpuUs(pid) - c0;
        cost.claim.wal += await walBytes(l0, l1);
        if (claimed.length === 0) break;
        c0 = cpuUs(pid);
        l0 = await lsn();
        await store.complete(claimed.map((row) => ({ kind: 'sent', fence: { id: row.id, claimToken: row.claimToken } })));
        l1 = await lsn();
        cost.complete.cpu += cpuUs(pid) - c0;
        cost.complete.wal += await walBytes(l0, l1);
        done += claimed.length;
      }
      const per = (x) => Math.round(x / done);
      return {
        bodyBytes,
        ...(toast ? { payloadOutOfLine: true } : {}),
        ...(narrow ? { keyIndexOnlyKeyedRows: true } : {}),
        rows: done,
        batch,
        claim: { backendCpuUsPerRow: per(cost.claim.cpu), walBytesPerRow: per(cost.claim.wal) },
        complete: { backendCpuUsPerRow: per(cost.complete.cpu), walBytesPerRow: per(cost.complete.wal) },
      };
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
}

const only = values['narrow-key-index'] ? [Number(values['body-bytes'])] : [Number(values['body-bytes']), 16];
for (const bytes of only) console.log(JSON.stringify(await measure(bytes)));
if (values['narrow-key-index']) console.log(JSON.stringify(await measure(Number(values['body-bytes']), false, true)));
if (values.toast) console.log(JSON.stringify(await measure(Number(values['body-bytes']), true)));
