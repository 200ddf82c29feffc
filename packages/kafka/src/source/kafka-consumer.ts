/**
 * A Kafka source (spec §7.7): one kafkajs consumer in `groupId` subscribed to every topic of the
 * source, auto-commit off, hands each record to the inbox side (core's DeliveryHandler).
 *
 * Per partition, records are taken in offset order and handled concurrently up to
 * `maxPollRecords` in hand over the whole source (in-hand-slots.ts), so their inserts share a
 * commit. After a batch the consumer commits, per partition, one past the unbroken run of durably
 * handled records and seeks back to the first failed one (offset-ledger.ts); the next fetch reads
 * from there after a backoff (a store outage must not become a hot loop of refetches). A commit
 * that fails just replays: the records come again and the inbox deduplicates them.
 *
 * Readiness (`kafka.<source>`) is "the poll loop runs": the consumer is in its group and fetched
 * or settled a record within HEALTH_STALE_MS. A broker that cannot be reached at start is retried
 * in the background (as the RabbitMQ source does), so QueueBox starts and consumes once it can.
 * Stop: no record is taken any more, those in hand settle for up to 30 s, their run is committed,
 * and the consumer disconnects within 5 s (§7.7, §19.3).
 */
import {
  BrokerSource,
  type BrokerSourceOptions,
  type KafkaSourceConfig,
  type SourceConsumerDeps,
} from '@queuebox/core';
import { checkBrokerSpeaks, KafkaBrokerUnsupportedError } from '../broker-check.js';
import { closeWithin, createClient, errorText } from '../connection.js';
import type { Consumer, EachBatchPayload, ISocketFactory, KafkaMessage } from '../kafkajs.js';
import { consumeRefusal } from './consume-refusal.js';
import { InHandSlots } from './in-hand-slots.js';
import { OffsetLedger, type Ticket } from './offset-ledger.js';
import { recordDelivery } from './record-delivery.js';
import { recordOutcome } from './record-outcome.js';

/** §7.7 and §19.3: poll 500 ms, close 5 s. */
export const POLL_TIMEOUT_MS = 500;
export const CLOSE_TIMEOUT_MS = 5_000;
/** No fetch and no settled record for this long: the poll loop is not running. */
export const HEALTH_STALE_MS = 10_000;
const SOURCE_RETRY = { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 };
/**
 * The group session. A consumer kafkajs restarts after a lost connection joins as a new member
 * (kafkajs keeps no member id across a restart), and the coordinator holds the rebalance until
 * the old member's session expires: with kafkajs's 30 s the source stayed down half a minute
 * after every network blip, and a SIGKILLed replica's partitions as long. 10 s (the Java
 * client's default before 3.0) bounds both; a batch heartbeats while its records are in hand.
 */
export const SESSION_TIMEOUT_MS = 10_000;
const HEARTBEAT_INTERVAL_MS = 3_000;
const BATCH_HEARTBEAT_MS = 1_000;
/** Partitions whose batches are handled at once; the in-hand bound still holds over all. */
const PARTITIONS_AT_ONCE = 4;

export type KafkaConsumerDeps = SourceConsumerDeps;

/** Where Kafka delivers an unsettled record again from. */
const AGAIN = ' from the last committed offset';
const TEXTS = { broker: 'Kafka', session: 'consumer', unit: 'record', again: AGAIN };

export interface KafkaConsumerOptions extends Pick<BrokerSourceOptions, 'settleTimeoutMs'> {
  /** Test seam. */
  readonly socketFactory?: ISocketFactory;
}

export class KafkaSourceConsumer extends BrokerSource<Consumer> {
  readonly #config: KafkaSourceConfig;
  readonly #client;
  readonly #ledger = new OffsetLedger();
  readonly #slots: InHandSlots;
  #joined = false;
  #lastActivity = 0;
  readonly #socketFactory: ISocketFactory | undefined;

  constructor(
    name: string,
    config: KafkaSourceConfig,
    deps: KafkaConsumerDeps,
    options: KafkaConsumerOptions = {},
  ) {
    // A failed record stops its partition: one round is one failure.
    super(name, { texts: TEXTS, errorText, retryRound: 1 }, deps, options);
    this.#config = config;
    this.#slots = new InHandSlots(config.maxPollRecords);
    this.#socketFactory = options.socketFactory;
    // Settings only (a wrong SASL mechanism throws here, which stops the start); no connection.
    this.#client = createClient({
      clientId: `queuebox-source-${name}`,
      path: `sources.${name}`,
      bootstrapServers: config.bootstrapServers,
      security: config,
      logger: deps.logger,
      // Few quick retries: a broker that is gone shows as `down` and the reconnect loop (or
      // kafkajs's restart after a crash) takes over, instead of one call retrying for 30 s.
      retry: SOURCE_RETRY,
      ...(options.socketFactory === undefined ? {} : { socketFactory: options.socketFactory }),
    });
  }

  /** Nothing Kafka answers at start is final (an ACL, a topic): the source keeps trying. */
  protected override stopsStart(): boolean {
    return false;
  }

  protected override startFailureText(error: unknown): string {
    const refusal = consumeRefusal(this.source, this.#config, error);
    if (refusal !== undefined) return `${refusal} It tries again in the background.`;
    if (error instanceof KafkaBrokerUnsupportedError)
      return `Source '${this.source}' cannot consume, and tries again in the background: ${errorText(error)}`;
    return super.startFailureText(error);
  }

  protected override reconnectFailureText(error: unknown, retryInMs: number): string {
    const refusal = consumeRefusal(this.source, this.#config, error);
    if (refusal !== undefined) return `${refusal} It tries again in ${retryInMs} ms.`;
    return super.reconnectFailureText(error, retryInMs);
  }

  protected override consumingText(): string {
    return 'consumes from Kafka';
  }

  /** The consumer is in its group and fetched or settled a record lately. */
  protected override ready(): boolean {
    return this.#joined && Date.now() - this.#lastActivity < HEALTH_STALE_MS;
  }

  /** The batches see the stop signal: no record is taken once close() began. */
  protected override async stopConsuming(): Promise<void> {}

  /** The run of records settled in hand is committed, then the consumer leaves within 5 s. */
  protected override async release(consumer: Consumer | null): Promise<void> {
    if (consumer !== null) {
      await this.#commit(consumer);
      await closeWithin(consumer.disconnect(), CLOSE_TIMEOUT_MS);
    }
    this.#joined = false;
  }

  protected override async open(): Promise<Consumer> {
    const config = this.#config;
    await checkBrokerSpeaks({
      bootstrapServers: config.bootstrapServers,
      ssl: config.securityProtocol.endsWith('SSL'),
      ...(this.#socketFactory === undefined ? {} : { socketFactory: this.#socketFactory }),
    });
    const consumer = this.#client.consumer({
      groupId: config.groupId,
      maxWaitTimeInMs: POLL_TIMEOUT_MS,
      allowAutoTopicCreation: false,
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    });
    const { events } = consumer;
    consumer.on(events.GROUP_JOIN, () => {
      // A rebalance: every partition is fetched again from its committed offset.
      this.#ledger.reassign();
      this.#joined = true;
      this.#lastActivity = Date.now();
    });
    consumer.on(events.FETCH, () => (this.#lastActivity = Date.now()));
    consumer.on(events.CRASH, (event) => {
      this.#joined = false;
      const { error, restart } = event.payload;
      this.logger.warn(
        `Source '${this.source}' lost its Kafka consumer${restart ? ' and restarts it' : ''}. Reason: ${errorText(error)}`,
      );
      // kafkajs gave up on the consumer (a crash it does not restart): a new one replaces it.
      if (!restart && this.session === consumer)
        this.lost(consumer, null, closeWithin(consumer.disconnect(), CLOSE_TIMEOUT_MS));
    });
    consumer.on(events.DISCONNECT, () => (this.#joined = false));
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [...config.topics],
        fromBeginning: config.autoOffsetReset === 'earliest',
      });
      if (this.stopSignal.aborted) throw new Error('the source is closing');
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: Math.min(PARTITIONS_AT_ONCE, config.maxPollRecords),
        eachBatch: (payload) => this.#eachBatch(consumer, payload),
      });
    } catch (error: unknown) {
      await closeWithin(consumer.disconnect(), CLOSE_TIMEOUT_MS);
      throw error;
    }
    return consumer;
  }

  async #eachBatch(consumer: Consumer, payload: EachBatchPayload): Promise<void> {
    // kafkajs heartbeats only when asked: records that take long (a slow store, slots all taken)
    // must not cost the membership.
    const heartbeats = setInterval(
      () => void payload.heartbeat().catch(() => undefined),
      BATCH_HEARTBEAT_MS,
    );
    try {
      await this.#handleBatch(consumer, payload);
    } finally {
      clearInterval(heartbeats);
    }
  }

  async #handleBatch(consumer: Consumer, payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    const tasks: Promise<void>[] = [];
    let lastTaken: string | null = null;
    for (const message of batch.messages) {
      if (this.stopSignal.aborted || !payload.isRunning() || payload.isStale()) break;
      // A free slot is taken without a turn of the microtask queue.
      if (!this.#slots.tryAcquire()) await this.#slots.acquire();
      // A record of this partition failed while this one waited for its slot: stop here.
      const ticket = this.stopSignal.aborted
        ? null
        : this.#ledger.take(topic, partition, BigInt(message.offset));
      if (ticket === null) {
        this.#slots.release();
        break;
      }
      lastTaken = message.offset;
      tasks.push(this.#handle(ticket, message).finally(() => this.#slots.release()));
    }
    await Promise.all(tasks);
    const seekTo = this.#ledger.seekTarget(topic, partition);
    if (seekTo !== null) {
      consumer.seek({ topic, partition, offset: seekTo.toString() });
      this.#ledger.resume(topic, partition);
    } else if (lastTaken !== null && lastTaken === batch.messages.at(-1)?.offset) {
      // The whole batch was handled: the next fetch starts after it (past control records too).
      payload.resolveOffset(lastTaken);
    }
    await this.#commit(consumer);
    // A failed record is fetched again after a wait, so a store outage is no hot loop.
    if (seekTo !== null) await this.pause(this.retryBackoff.next());
    else if (tasks.length > 0) this.retryBackoff.reset();
    await payload.heartbeat().catch(() => undefined);
  }

  #handle(ticket: Ticket, message: KafkaMessage): Promise<void> {
    return this.handle(recordDelivery(message), (verdict) => {
      this.#ledger.settle(ticket, recordOutcome(verdict));
      this.#lastActivity = Date.now();
    });
  }

  /** Commits the unbroken runs; a failed commit just replays (the inbox deduplicates). */
  async #commit(consumer: Consumer): Promise<void> {
    const commits = this.#ledger.commits();
    if (commits.length === 0) return;
    try {
      await consumer.commitOffsets(
        commits.map(({ topic, partition, offset }) => ({
          topic,
          partition,
          offset: offset.toString(),
        })),
      );
    } catch (error: unknown) {
      this.logger.debug(
        `Source '${this.source}' could not commit its offsets; the records come again and the inbox deduplicates them. Reason: ${errorText(error)}`,
      );
    }
  }
}
