/**
 * A child process that does the database work QueueBox's outbox does per message, and nothing
 * else: for each `{ rows }` message from its parent it claims that many rows with QueueBox's own
 * claim (`@queuebox/postgres`, the statement the poller sends) and marks them sent with its own
 * fenced completion, one call for the batch. No publishing, no poller: run beside a plain client
 * (outbox-ceiling.mjs: mq-plain-8-db, nats-plain-8-db, limit-db-<size>), it shows what the writes
 * an outbox cannot do without cost the broker or the HTTP path on this machine. Work arriving
 * while a batch runs waits for it, as one poller's claims would.
 */
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS, systemClock } from '@queuebox/core';
import { createPostgresOutboxStore, tableNamesFrom } from '@queuebox/postgres';
import { connect } from './pg.mjs';

const [database] = process.argv.slice(2);
const sql = connect(database, { max: 2 });
const tables = tableNamesFrom({
  outboxTableName: 'outbox',
  inboxTableName: 'inbox',
  columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
});
const store = createPostgresOutboxStore(sql, tables, systemClock);

let chain = Promise.resolve();
let done = 0;
// 'end' marks the client's last publish or response: what was written by then, and how long the
// batches still queued took after it, say whether the work kept up inside the measured window.
let end = null;
process.on('message', (message) => {
  if (message === 'end') {
    end = { doneAtEnd: done, at: performance.now() };
    return;
  }
  if (message === 'stop') {
    void chain.then(async () => {
      const lagMs = end === null ? null : Math.round(performance.now() - end.at);
      await sql.end({ timeout: 5 });
      process.send({ done, doneAtEnd: end?.doneAtEnd ?? null, lagMs }, () => process.exit(0));
    });
    return;
  }
  chain = chain.then(async () => {
    const rows = await store.claim(message.rows, 30_000);
    await store.complete(rows.map((row) => ({ kind: 'sent', fence: { id: row.id, claimToken: row.claimToken } })));
    done += rows.length;
  });
});
// The backend's pid goes with 'ready' so that its CPU counts as the scenario database's. The
// batches run one after the other, so the pool's first connection is the only one in use.
const [{ pid }] = await sql`select pg_backend_pid() as pid`;
process.send({ ready: true, backendPids: [pid] });
