/**
 * kafkajs is CommonJS and spreads its error classes into `module.exports`, which Node's ES
 * module loader cannot see as named exports (only `Kafka`, `logLevel` and a few others come
 * through). Everything QueueBox uses of it at run time is taken from the default export here.
 */
import kafkajs from 'kafkajs';

export const { Kafka, logLevel, Partitioners } = kafkajs;
export type {
  Consumer,
  EachBatchPayload,
  IHeaders,
  ISocketFactory,
  KafkaConfig,
  KafkaMessage,
  LogEntry,
  Message,
  PartitionerArgs,
  Producer,
  SASLOptions,
  TopicMessages,
} from 'kafkajs';
