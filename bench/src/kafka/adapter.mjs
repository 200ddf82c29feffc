/**
 * What QueueBox's Kafka scenarios need of the broker (see ../lib/queuebox-broker.mjs): the outbox
 * delivers to a topic of `PARTITIONS` partitions at its defaults; the source stores a loaded topic
 * at its defaults (maxPollRecords 100).
 */
import { KAFKA_BROKERS, produceBatches } from './broker.mjs';

export const kafkaAdapter = (broker) => ({
  name: 'Kafka',
  key: 'k',
  publish: {
    target: 'topic',
    countKey: 'inTopic',
    note: `QueueBox defaults for everything else (outbox.batchSize 100, pollIntervalMs 100, idempotent producer, acks all, timeoutMs 30000, null keys); the topic has 6 partitions`,
    scratch: (id) => broker.scratch(id),
    destination: (scratch) => ({ type: 'kafka', bootstrapServers: KAFKA_BROKERS, topic: scratch.topic }),
    count: (scratch) => scratch.depth(),
  },
  source: {
    title: 'Kafka source → inbox, maxPollRecords 100 (default)',
    note: 'QueueBox defaults for everything else (maxPollRecords 100, autoOffsetReset earliest, key from the record key); the relay is off so only ingestion is measured; the topic was filled first by a plain idempotent producer (batches of 500)',
    scratch: (id) => broker.scratch(id),
    filled: (scratch, rows) => `${rows} records into ${scratch.topic}`,
    // The source's key: the record key.
    fill: (scratch, rows, body) =>
      produceBatches(broker.kafka, { topic: scratch.topic, count: rows, batch: 500, body, key: (i) => `m-${i}` }),
    config: (scratch) => ({ type: 'kafka', bootstrapServers: KAFKA_BROKERS, topics: [scratch.topic], groupId: `${scratch.topic}.group` }),
  },
});
