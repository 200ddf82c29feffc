/**
 * A child process that does the database work QueueBox's outbox does per message, and nothing
 * else: for each `{ rows }` message from its parent it claims that many rows with QueueBox's own
 * claim (`@queuebox/postgres`, the statement the poller sends) and marks them sent with its own
 * fenced completion, one call for the batch. No publishing, no poller: run beside a plain client
 * (outbox-ceiling.mjs: mq-plain-8-db, nats-plain-8-db, limit-db-<size>), it shows what the writes
 * an outbox cannot do without cost the broker or the HTTP path on this machine. Up to two
 * batches run at once, but their claims one at a time, as the poller's claims of rows without a
 * key (a second claim beside the first finds its rows locked and comes back short): one batch's
 * completion overlaps the next one's claim; more work waits. One batch at a time fell behind the
 * HTTP client: a third of the rows were still unwritten at its last response, so the ceiling
 * read too high.
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

const IN_FLIGHT = 2;
const waiting = [];
let running = 0;
let idle = Promise.resolve();
let markIdle = () => {};
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
    void idle.then(async () => {
      const lagMs = end === null ? null : Math.round(performance.now() - end.at);
      await sql.end({ timeout: 5 });
      process.send({ done, doneAtEnd: end?.doneAtEnd ?? null, lagMs }, () => process.exit(0));
    });
    return;
  }
  waiting.push(message.rows);
  pump();
});

function pump() {
  while (running < IN_FLIGHT && waiting.length > 0) {
    if (running === 0) idle = new Promise((resolve) => (markIdle = resolve));
    running += 1;
    void batch(waiting.shift()).finally(() => {
      running -= 1;
      pump();
      if (running === 0) markIdle();
    });
  }
}

let claiming = Promise.resolve();
async function batch(limit) {
  const claim = claiming.then(() => store.claim(limit, 30_000));
  claiming = claim.catch(() => {});
  const rows = await claim;
  await store.complete(rows.map((row) => ({ kind: 'sent', fence: { id: row.id, claimToken: row.claimToken } })));
  done += rows.length;
}
// The backends' pids go with 'ready' so that their CPU counts as the scenario database's: both
// connections of the pool are opened here, one per batch in flight.
const pids = await Promise.all(
  [0, 1].map(() => sql.begin(async (tx) => (await tx`select pg_backend_pid() as pid`)[0].pid)),
);
process.send({ ready: true, backendPids: [...new Set(pids)] });
