/**
 * @queuebox/kafka: QueueBox on Kafka through kafkajs. The publisher delivers outbox rows to
 * topics with an idempotent producer and `acks` all (spec §6.3); the source consumer reads topics
 * in a consumer group into the inbox (spec §7.7), committing an offset only past records the
 * inbox side reports durably handled.
 *
 * It speaks Kafka and converts what Kafka carries (record keys, headers, timestamps); it does not
 * route, render address templates, transform, extract attributes or store: the outbox and inbox
 * services do, behind core's Publisher and SourceConsumer ports. The app finds it through
 * `provider`.
 */
import { brokerProvider } from '@queuebox/core';
import { descriptor } from './descriptor.js';
import { createKafkaPublisher } from './publisher/kafka-publisher.js';
import { KafkaSourceConsumer } from './source/kafka-consumer.js';

export { classifyKafkaError, kafkaError } from './classify-error.js';
export { createKafkaPublisher, type KafkaPublisherOptions } from './publisher/kafka-publisher.js';
export { requestTimeoutOf } from './publisher/destination-link.js';
export { MAX_BATCH_BYTES, MAX_BATCH_RECORDS } from './publisher/send-batches.js';
export { STICKY_BATCH_BYTES, StickyPartitioning } from './publisher/sticky-partitioner.js';
export { brokerList, clientConfig, securityOptions } from './connection.js';
export {
  KafkaSourceConsumer,
  HEALTH_STALE_MS,
  POLL_TIMEOUT_MS,
  type KafkaConsumerDeps,
  type KafkaConsumerOptions,
} from './source/kafka-consumer.js';
export { OffsetLedger, type RecordOutcome, type Ticket } from './source/offset-ledger.js';
export { recordDelivery, convertHeaders as kafkaHeaderText } from './source/record-delivery.js';

export { descriptor };

export const provider = brokerProvider(descriptor, createKafkaPublisher, KafkaSourceConsumer);
