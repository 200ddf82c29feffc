/**
 * What the Kafka tests do past the adapter under test (dev only): topics of a test's own (one
 * name prefix per file, deleted by `cleanup`) and their settings, raw records (tombstones too),
 * the records a topic holds, and what a consumer group has not committed yet. A fault proxy sits between the adapter and the broker
 * through kafkajs's `socketFactory`: every broker the cluster advertises is dialled at the proxy.
 */
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { FaultProxy } from './fault-proxy.js';
import kafkajs, { type Admin, type IHeaders, type ISocketFactory, type Producer } from 'kafkajs';

const { ConfigResourceTypes, Kafka, logLevel } = kafkajs;

export interface ConsumedRecord {
  readonly key: string | null;
  readonly value: string;
  readonly headers: [string, string][];
  readonly partition: number;
}

export interface KafkaKit {
  name(suffix: string): string;
  /** Creates the topic; `configs` are topic settings (`max.message.bytes`). */
  topic(name: string, partitions?: number, configs?: Record<string, string>): Promise<string>;
  /** Replaces the topic's own settings by `configs` (Kafka's AlterConfigs). */
  setTopicConfig(topic: string, configs: Record<string, string>): Promise<void>;
  /** One record; a `null` value is a tombstone. */
  produce(
    topic: string,
    record: { value: Buffer | string | null; key?: string; headers?: IHeaders; timestamp?: Date },
  ): Promise<void>;
  /** Every record of `topic` from the start, read by a fresh group, in partition-offset order. */
  collect(topic: string): { records: ConsumedRecord[]; stop(): Promise<void> };
  /** Records of the topic the group has not committed past (end offset − committed). */
  lag(groupId: string, topic: string): Promise<number>;
  cleanup(): Promise<void>;
}

/** The socketFactory that dials every broker at the proxy (one broker here). */
export function viaProxy(proxy: FaultProxy): ISocketFactory {
  return ({ onConnect }) => {
    const socket: Socket = connect({ host: proxy.host, port: proxy.port }, onConnect);
    socket.setKeepAlive(true);
    return socket;
  };
}

/** `host:port` of the broker list, for the fault proxy's target. */
export function brokerAddress(brokers: string): { host: string; port: number } {
  const [first] = brokers.split(',');
  const [host, port] = first!.trim().split(':');
  return { host: host === 'localhost' ? '127.0.0.1' : host!, port: Number(port ?? 9092) };
}

export async function createKafkaKit(brokers: string, prefix: string): Promise<KafkaKit> {
  const kafka = new Kafka({
    clientId: `${prefix}-kit`,
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin: Admin = kafka.admin();
  await admin.connect();
  let producer: Promise<Producer> | null = null;
  const topics: string[] = [];
  const groups: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  const run = randomUUID().slice(0, 8);
  return {
    name: (suffix) => `${prefix}.${run}.${suffix}`,
    async topic(name, partitions = 1, configs = {}) {
      await admin.createTopics({
        topics: [
          {
            topic: name,
            numPartitions: partitions,
            replicationFactor: 1,
            configEntries: configEntries(configs),
          },
        ],
        waitForLeaders: false,
      });
      topics.push(name);
      await leadersOf(admin, name, partitions);
      return name;
    },
    async setTopicConfig(topic, configs) {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: topic, configEntries: configEntries(configs) },
        ],
      });
    },
    async produce(topic, record) {
      // Concurrent first calls share one connect: kafkajs refuses a send before it is done.
      if (producer === null) {
        const created = kafka.producer();
        producer = created.connect().then(() => created);
      }
      await (
        await producer
      ).send({
        topic,
        messages: [
          {
            value: record.value,
            key: record.key ?? null,
            headers: record.headers ?? {},
            ...(record.timestamp === undefined
              ? {}
              : { timestamp: String(record.timestamp.getTime()) }),
          },
        ],
      });
    },
    collect(topic) {
      const records: ConsumedRecord[] = [];
      const groupId = `${prefix}.${run}.collect.${randomUUID().slice(0, 8)}`;
      groups.push(groupId);
      let consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
      const started = (async () => {
        // A broker that has just started again may not serve the topic for a moment
        // (UNKNOWN_TOPIC_OR_PARTITION): the subscription is tried again for a while.
        const deadline = Date.now() + 60_000;
        for (;;) {
          try {
            await consumer.connect();
            await consumer.subscribe({ topics: [topic], fromBeginning: true });
            break;
          } catch (error: unknown) {
            await consumer.disconnect().catch(() => undefined);
            if (Date.now() > deadline) throw error;
            consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
        await consumer.run({
          eachMessage: ({ message, partition }) => {
            const headers = Object.entries(message.headers ?? {}).flatMap(([name, value]) =>
              [value]
                .flat()
                .filter((v) => v !== undefined)
                .map((v): [string, string] => [name, v.toString()]),
            );
            records.push({
              key: message.key === null ? null : message.key.toString(),
              value: message.value?.toString() ?? '',
              headers,
              partition,
            });
            return Promise.resolve();
          },
        });
      })();
      // A collection that never started shows as records missing, not as an unhandled rejection.
      started.catch(() => undefined);
      const stop = async () => {
        await started.catch(() => undefined);
        await consumer.disconnect();
      };
      stops.push(stop);
      return { records, stop };
    },
    async lag(groupId, topic) {
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      let lag = 0;
      for (const end of ends) {
        const at = committed?.partitions.find((p) => p.partition === end.partition)?.offset;
        const from = at === undefined || Number(at) < 0 ? Number(end.low) : Number(at);
        lag += Number(end.high) - from;
      }
      return lag;
    },
    async cleanup() {
      for (const stop of stops.splice(0)) await stop().catch(() => undefined);
      await producer?.then((p) => p.disconnect()).catch(() => undefined);
      if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
      if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

/**
 * Waits until every partition of a new topic has a leader. kafkajs's own `waitForLeaders` retries
 * only LEADER_NOT_AVAILABLE, but a KRaft broker under load may still answer
 * UNKNOWN_TOPIC_OR_PARTITION for a moment after it created the topic.
 */
async function leadersOf(admin: Admin, topic: string, partitions: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const found = topics[0]?.partitions ?? [];
      if (found.length === partitions && found.every((p) => p.leader >= 0)) return;
    } catch (error: unknown) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic}: no leader for every partition`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function configEntries(configs: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(configs).map(([name, value]) => ({ name, value }));
}
