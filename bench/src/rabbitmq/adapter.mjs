/**
 * What QueueBox's RabbitMQ scenarios need of the broker (see ../lib/queuebox-broker.mjs): the
 * outbox delivers to a durable topic exchange with one durable queue bound by `#`, at the defaults
 * and with `outbox.concurrency: 64`; the source stores a loaded queue at its defaults
 * (prefetchCount 10).
 */
import { RABBITMQ_URL, maskedUrl, publishConfirmed } from './broker.mjs';

export const rabbitmqAdapter = (broker) => ({
  name: 'RabbitMQ',
  key: 'mq',
  // The printout and the JSON never carry the broker password.
  yaml: (config) => JSON.parse(JSON.stringify(config).replaceAll(RABBITMQ_URL, maskedUrl())),
  publish: {
    target: 'exchange',
    countKey: 'inQueue',
    note: `QueueBox defaults for everything else (outbox.batchSize 100, pollIntervalMs 100, deliveryMode persistent, exchangeType topic, routing key {{ topic }}); the exchange is durable with one durable queue bound by #`,
    scratch: (id) => broker.scratch(id),
    destination: (scratch) => ({ type: 'rabbitmq', url: RABBITMQ_URL, exchange: scratch.exchange }),
    count: (scratch) => scratch.depth(),
  },
  source: {
    title: 'RabbitMQ source → inbox, prefetchCount 10 (default)',
    note: 'QueueBox defaults for everything else (prefetchCount 10, key from AMQP message_id); the relay is off so only ingestion is measured; the queue was filled first by a plain client (64 in flight, persistent)',
    scratch: (id) => broker.scratch(id, { exchange: false }),
    filled: (scratch, rows) => `${rows} messages into ${scratch.queue}`,
    // The source's key: AMQP message_id.
    fill: (scratch, rows, body) =>
      publishConfirmed(broker.connection, { queue: scratch.queue, count: rows, inFlight: 64, body, messageId: (i) => `m-${i}` }),
    config: (scratch) => ({ type: 'rabbitmq', queueName: scratch.queue, connectionUrl: RABBITMQ_URL }),
    leftKey: 'leftInQueue',
    left: (scratch) => scratch.depth(),
  },
});
