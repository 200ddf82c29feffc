/**
 * The yardstick of the Kafka source (kf-src-plain): a plain kafkajs consumer that keeps the source
 * contract of spec §7.7 and does nothing else. Auto-commit off; at most 100 records in hand over
 * the whole consumer (the source's default `maxPollRecords`), 4 partitions at once (as the
 * source); each record stored through QueueBox's own inbox store (its grouped INSERT, one commit
 * for the records stored together), and the offset past a batch committed only after every
 * record of it is stored. Each row holds what the source stores for such a record: the key as
 * idempotency key and aggregate id, the record timestamp as publish time, a new correlation id
 * (the aggregate id is indexed, so a yardstick that left it null would do less work). No transform, no header conversion, no health, no metrics: what is left
 * is the broker, the database and the records the contract allows in hand.
 */
import { randomUUID } from 'node:crypto';
import { JsonPayload } from '@queuebox/core';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { plainInboxStore, storedFigures } from '../lib/plain-consumer.mjs';
import { log, now } from '../lib/util.mjs';
import { produceBatches } from './broker.mjs';

const IN_HAND = 100;
const PARTITIONS_AT_ONCE = 4;

/** A counting semaphore: the records in hand over every partition. */
function slots(size) {
  let free = size;
  const waiting = [];
  return {
    acquire: () => (free > 0 ? (free--, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve))),
    release: () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

export async function plainSource(ctx, broker, { id }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id);
  try {
    log(`${id}: ${rows} records into ${scratch.topic}, then a plain consumer storing them (${IN_HAND} in hand)`);
    await produceBatches(broker.kafka, {
      topic: scratch.topic,
      count: rows,
      batch: 500,
      body: (i) => ctx.payloads.text(i, null),
      key: (i) => `m-${i}`,
    });
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      const sql = connect(db, { max: 10 });
      const consumer = broker.kafka.consumer({ groupId: `${scratch.topic}.plain`, maxWaitTimeInMs: 500 });
      try {
        const store = await plainInboxStore(sql);
        const hand = slots(IN_HAND);
        const loadBefore = loadAverage();
        let stored = 0;
        let first = null;
        let last = null;
        let finish;
        const done = new Promise((resolve) => (finish = resolve));
        const storeOne = (message, key = message.key.toString('utf8')) =>
          store.store(
            {
              id: randomUUID(),
              source: 'kf',
              idempotencyKey: key,
              aggregateId: key,
              eventType: null,
              payload: JsonPayload.fromText(message.value.toString('utf8')),
              headers: {},
              correlationId: randomUUID(),
              consumption: 'push',
              publishTime: new Date(Number(message.timestamp)),
            },
            { initialDelayMs: 0 },
          );
        await consumer.connect();
        await consumer.subscribe({ topics: [scratch.topic], fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          partitionsConsumedConcurrently: PARTITIONS_AT_ONCE,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
            first ??= now();
            const tasks = [];
            for (const message of batch.messages) {
              await hand.acquire();
              tasks.push(
                storeOne(message).finally(() => {
                  hand.release();
                  stored += 1;
                }),
              );
            }
            await Promise.all(tasks);
            const lastOffset = batch.messages.at(-1)?.offset;
            if (lastOffset !== undefined) {
              resolveOffset(lastOffset);
              await consumer.commitOffsets([
                { topic: batch.topic, partition: batch.partition, offset: String(BigInt(lastOffset) + 1n) },
              ]);
            }
            last = now();
            await heartbeat();
            if (stored >= rows) finish();
          },
        });
        await done;
        const figures = await storedFigures(sql, rows, options['warm-rows']);
        return {
          id,
          system: 'kafkajs',
          title: `plain consumer keeping the source contract, ${IN_HAND} in hand`,
          rows,
          payloadBytes: options['body-bytes'],
          settings: {
            client: `kafkajs consumer, auto-commit off, ${PARTITIONS_AT_ONCE} partitions at once, ${IN_HAND} records in hand, each stored by QueueBox's inbox store (grouped INSERT), offsets committed after the batch's commits; nothing else`,
          },
          figures,
          loadAverage: { before: loadBefore, after: loadAverage() },
          cpu: ctx.cpu.window(first, last),
        };
      } finally {
        await consumer.disconnect().catch(() => undefined);
        await sql.end({ timeout: 5 });
      }
    });
  } finally {
    await scratch.drop();
  }
}
