/**
 * The ceiling of any RabbitMQ source on this machine (mq-src-plain): a plain amqplib consumer
 * that keeps the source contract of spec §7.6 and does nothing else. `prefetchCount` 10 (the
 * source's default), each delivery stored through QueueBox's own inbox store (its grouped
 * INSERT, one commit for the deliveries that arrive together) and acknowledged only after that
 * commit. No transform, no header conversion, no health, no metrics: what is left is the broker,
 * the database and the 10 unacknowledged messages the contract allows at once.
 */
import { randomUUID } from 'node:crypto';
import { connect as amqpConnect } from 'amqplib';
import { JsonPayload } from '@queuebox/core';
import { loadAverage } from '../lib/machine.mjs';
import { connect, withDatabase } from '../lib/pg.mjs';
import { plainInboxStore, storedFigures } from '../lib/plain-consumer.mjs';
import { log, now } from '../lib/util.mjs';
import { RABBITMQ_URL, publishConfirmed } from './broker.mjs';

const PREFETCH = 10;

export async function plainSource(ctx, broker, { id }) {
  const { options } = ctx;
  const rows = options.rows;
  const scratch = await broker.scratch(id, { exchange: false });
  try {
    log(`${id}: ${rows} messages into ${scratch.queue}, then a plain consumer storing them (prefetch ${PREFETCH})`);
    await publishConfirmed(broker.connection, {
      queue: scratch.queue,
      count: rows,
      inFlight: 64,
      body: (i) => ctx.payloads.text(i, null),
      messageId: (i) => `m-${i}`,
    });
    return await withDatabase('qb_bench', options['keep-db'], async (db) => {
      const sql = connect(db, { max: 10 });
      const connection = await amqpConnect(RABBITMQ_URL);
      try {
        const store = await plainInboxStore(sql);
        const channel = await connection.createChannel();
        await channel.prefetch(PREFETCH);
        const loadBefore = loadAverage();
        let stored = 0;
        let first = null;
        let last = null;
        const done = new Promise((resolve, reject) => {
          void channel.consume(scratch.queue, (message) => {
            if (message === null) return;
            first ??= now();
            store
              .store(
                {
                  id: randomUUID(),
                  source: 'mq',
                  idempotencyKey: message.properties.messageId,
                  aggregateId: null,
                  eventType: null,
                  payload: JsonPayload.fromText(message.content.toString('utf8')),
                  headers: {},
                  correlationId: null,
                  consumption: 'push',
                  publishTime: null,
                },
                { initialDelayMs: 0 },
              )
              .then(() => {
                channel.ack(message);
                stored += 1;
                last = now();
                if (stored === rows) resolve();
              }, reject);
          });
        });
        await done;
        const figures = await storedFigures(sql, rows);
        return {
          id,
          system: 'amqplib',
          title: `plain consumer keeping the source contract, prefetch ${PREFETCH}`,
          rows,
          payloadBytes: options['body-bytes'],
          settings: {
            client: `amqplib consumer, prefetch ${PREFETCH}, each delivery stored by QueueBox's inbox store (grouped INSERT) and acked after its commit; nothing else`,
          },
          figures: { ...figures, leftInQueue: await scratch.depth() },
          loadAverage: { before: loadBefore, after: loadAverage() },
          cpu: ctx.cpu.window(first, last),
        };
      } finally {
        await connection.close().catch(() => undefined);
        await sql.end({ timeout: 5 });
      }
    });
  } finally {
    await scratch.drop();
  }
}
