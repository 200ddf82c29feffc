import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  brokerGeneration,
  KAFKAJS_MAX_VERSIONS,
  refusal,
  type BrokerApis,
} from './broker-check.js';

const require = createRequire(import.meta.url);

/** What the local brokers answered to ApiVersions v0 for the requests QueueBox sends. */
const KAFKA_4_4: BrokerApis = new Map([
  [0, [0, 13]],
  [1, [4, 18]],
  [2, [1, 11]],
  [3, [0, 13]],
  [8, [2, 10]],
  [9, [1, 10]],
  [10, [0, 6]],
  [11, [0, 9]],
  [12, [0, 4]],
  [13, [0, 5]],
  [14, [0, 5]],
  [18, [0, 5]],
  [22, [0, 5]],
]);
const KAFKA_3_9: BrokerApis = new Map([
  ...KAFKA_4_4,
  [0, [0, 11]],
  [1, [0, 17]],
  [2, [0, 9]],
  [8, [0, 9]],
]);

describe('the broker check', () => {
  it('keeps its table of kafkajs versions equal to the versions kafkajs implements', () => {
    const { requests } = require('kafkajs/src/protocol/requests/index.js') as {
      requests: Record<string, { versions: string[] }>;
    };
    const apiKeys = require('kafkajs/src/protocol/requests/apiKeys.js') as Record<string, number>;
    for (const [key, { name, max }] of KAFKAJS_MAX_VERSIONS) {
      expect(apiKeys[name]).toBe(key);
      expect(Math.max(...requests[name]!.versions.map(Number))).toBe(max);
    }
  });

  it('accepts Kafka 3.9 and 4.4 and names their generation', () => {
    expect(refusal('127.0.0.1:9092', KAFKA_4_4)).toBeUndefined();
    expect(refusal('127.0.0.1:9392', KAFKA_3_9)).toBeUndefined();
    expect(brokerGeneration(KAFKA_4_4)).toBe('Kafka 4.0 or later (Produce v0-v13, Fetch v4-v18)');
    expect(brokerGeneration(KAFKA_3_9)).toBe('Kafka before 4.0 (Produce v0-v11, Fetch v0-v17)');
  });

  it('refuses a broker that serves no version kafkajs speaks, naming each side', () => {
    const newer = new Map<number, readonly [number, number]>([
      ...KAFKA_4_4,
      [0, [8, 15]],
      [1, [12, 20]],
    ]);
    newer.delete(22);
    expect(refusal('kafka-1:9092', newer)?.message).toBe(
      "The Kafka broker at kafka-1:9092 is Kafka 4.0 or later (Produce v8-v15, Fetch v12-v20), and QueueBox's Kafka client (kafkajs 2.2.4) cannot speak to it: the broker serves Produce from v8 only (kafkajs speaks up to v7); Fetch from v12 only (kafkajs speaks up to v11); InitProducerId not at all (kafkajs speaks v0-v1). Point QueueBox at a Kafka broker from 1.0 to 4.x.",
    );
  });
});
