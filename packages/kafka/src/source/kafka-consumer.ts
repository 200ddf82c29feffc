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
  DoublingBackoff,
  ReconnectSchedule,
  sanitize,
  sleep,
  toError,
  type DeliveryHandler,
  type DeliveryVerdict,
  type KafkaSourceConfig,
  type Logger,
  type SourceConsumer,
} from '@queuebox/core';
import { checkBrokerSpeaks, KafkaBrokerUnsupportedError } from '../broker-check.js';
import { closeWithin, createClient, errorText } from '../connection.js';
import type { Consumer, EachBatchPayload, ISocketFactory, KafkaMessage } from '../kafkajs.js';
import { consumeRefusal } from './consume-refusal.js';
import { InHandSlots } from './in-hand-slots.js';
import { OffsetLedger, type Ticket } from './offset-ledger.js';
import { recordDelivery } from './record-delivery.js';
import { recordOutcome } from './record-outcome.js';

/** §7.7 and §19.3: poll 500 ms, stop waits 30 s, close 5 s. */
export const POLL_TIMEOUT_MS = 500;
export const SETTLE_TIMEOUT_MS = 30_000;
export const CLOSE_TIMEOUT_MS = 5_000;
/** No fetch and no settled record for this long: the poll loop is not running. */
export const HEALTH_STALE_MS = 10_000;
export const RECONNECT_INITIAL_MS = 250;
export const RECONNECT_MAX_MS = 5_000;
const RETRY_BACKOFF_INITIAL_MS = 100;
const RETRY_BACKOFF_MAX_MS = 5_000;
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

export interface KafkaConsumerDeps {
  readonly handler: DeliveryHandler;
  readonly logger: Logger;
}

export interface KafkaConsumerOptions {
  /** Test seams. */
  readonly socketFactory?: ISocketFactory;
  readonly settleTimeoutMs?: number;
}

export class KafkaSourceConsumer implements SourceConsumer {
  readonly source: string;
  readonly healthComponent: string;
  readonly #config: KafkaSourceConfig;
  readonly #handler: DeliveryHandler;
  readonly #logger: Logger;
  readonly #client;
  readonly #ledger = new OffsetLedger();
  readonly #slots: InHandSlots;
  readonly #settleTimeoutMs: number;
  readonly #stop = new AbortController();
  readonly #inHand = new Set<Promise<void>>();
  #consumer: Consumer | null = null;
  #joined = false;
  #lastActivity = 0;
  readonly #retryBackoff = new DoublingBackoff(1, RETRY_BACKOFF_INITIAL_MS, RETRY_BACKOFF_MAX_MS);
  readonly #reconnect = new ReconnectSchedule(
    this.#stop.signal,
    RECONNECT_INITIAL_MS,
    RECONNECT_MAX_MS,
  );
  #connecting: Promise<void> | null = null;
  #closing: Promise<void> | null = null;
  readonly #socketFactory: ISocketFactory | undefined;

  constructor(
    name: string,
    config: KafkaSourceConfig,
    deps: KafkaConsumerDeps,
    options: KafkaConsumerOptions = {},
  ) {
    this.source = name;
    this.healthComponent = `kafka.${name}`;
    this.#config = config;
    this.#handler = deps.handler;
    this.#logger = deps.logger;
    this.#slots = new InHandSlots(config.maxPollRecords);
    this.#settleTimeoutMs = options.settleTimeoutMs ?? SETTLE_TIMEOUT_MS;
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

  async start(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return this.close();
    signal?.addEventListener('abort', () => void this.close(), { once: true });
    try {
      await this.#connect();
    } catch (error: unknown) {
      const refusal = consumeRefusal(this.source, this.#config, error);
      this.#logger.warn(
        refusal !== undefined
          ? `${refusal} It tries again in the background.`
          : error instanceof KafkaBrokerUnsupportedError
            ? `Source '${this.source}' cannot consume, and tries again in the background: ${errorText(error)}`
            : `Source '${this.source}' cannot reach Kafka yet, so it keeps trying in the background. Reason: ${errorText(error)}`,
      );
      this.#scheduleReconnect();
    }
  }

  isHealthy(): boolean {
    return (
      this.#consumer !== null &&
      this.#joined &&
      !this.#stop.signal.aborted &&
      Date.now() - this.#lastActivity < HEALTH_STALE_MS
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort();
    this.#reconnect.cancel();
    await this.#connecting?.catch(() => undefined);
    const consumer = this.#consumer;
    // Records in hand settle (the batch that took them then commits their run), at most 30 s.
    await closeWithin(Promise.allSettled([...this.#inHand]), this.#settleTimeoutMs);
    if (this.#inHand.size > 0) {
      this.#logger.warn(
        `Source '${this.source}' stopped with ${this.#inHand.size} record(s) still being handled; Kafka delivers them again from the last committed offset.`,
      );
    }
    if (consumer !== null) {
      await this.#commit(consumer);
      await closeWithin(consumer.disconnect(), CLOSE_TIMEOUT_MS);
    }
    this.#consumer = null;
    this.#joined = false;
  }

  #connect(): Promise<void> {
    const connecting = this.#open();
    this.#connecting = connecting;
    return connecting.finally(() => {
      if (this.#connecting === connecting) this.#connecting = null;
    });
  }

  async #open(): Promise<void> {
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
      this.#logger.warn(
        `Source '${this.source}' lost its Kafka consumer${restart ? ' and restarts it' : ''}. Reason: ${errorText(error)}`,
      );
      if (!restart) this.#lostForGood(consumer);
    });
    consumer.on(events.DISCONNECT, () => (this.#joined = false));
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [...config.topics],
        fromBeginning: config.autoOffsetReset === 'earliest',
      });
      if (this.#stop.signal.aborted) throw new Error('the source is closing');
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
    this.#consumer = consumer;
    this.#reconnect.connected();
  }

  /** kafkajs gave up on the consumer (a crash it does not restart): start a new one. */
  #lostForGood(consumer: Consumer): void {
    if (this.#consumer !== consumer) return;
    this.#consumer = null;
    void closeWithin(consumer.disconnect(), CLOSE_TIMEOUT_MS).then(() => this.#scheduleReconnect());
  }

  #scheduleReconnect(): void {
    this.#reconnect.schedule(
      () => this.#connect(),
      () => this.#logger.info(`Source '${this.source}' consumes from Kafka again.`),
      (error: unknown) => {
        const refusal = consumeRefusal(this.source, this.#config, error);
        const retryIn = this.#reconnect.nextDelayMs;
        this.#logger.warn(
          refusal !== undefined
            ? `${refusal} It tries again in ${retryIn} ms.`
            : `Source '${this.source}' could not reconnect to Kafka; it tries again in ${retryIn} ms. Reason: ${errorText(error)}`,
        );
        this.#scheduleReconnect();
      },
    );
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
      if (this.#stop.signal.aborted || !payload.isRunning() || payload.isStale()) break;
      await this.#slots.acquire();
      // A record of this partition failed while this one waited for its slot: stop here.
      const ticket = this.#stop.signal.aborted
        ? null
        : this.#ledger.take(topic, partition, BigInt(message.offset));
      if (ticket === null) {
        this.#slots.release();
        break;
      }
      lastTaken = message.offset;
      tasks.push(this.#track(this.#handle(ticket, message).finally(() => this.#slots.release())));
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
    if (seekTo !== null) await this.#backOff();
    else if (tasks.length > 0) this.#retryBackoff.reset();
    await payload.heartbeat().catch(() => undefined);
  }

  async #handle(ticket: Ticket, message: KafkaMessage): Promise<void> {
    let verdict: DeliveryVerdict;
    try {
      verdict = await this.#handler.handle(recordDelivery(message));
    } catch (error: unknown) {
      // The port promises a verdict; a handler that throws anyway leaves the record to come again.
      verdict = { settle: 'retry', reason: sanitize(toError(error).message) };
    }
    this.#ledger.settle(ticket, recordOutcome(verdict));
    this.#lastActivity = Date.now();
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
      this.#logger.debug(
        `Source '${this.source}' could not commit its offsets; the records come again and the inbox deduplicates them. Reason: ${errorText(error)}`,
      );
    }
  }

  /** 100 ms doubling to 5 s while records keep failing, so an outage is no hot loop. */
  async #backOff(): Promise<void> {
    await sleep(this.#retryBackoff.next(), this.#stop.signal);
  }

  #track(task: Promise<void>): Promise<void> {
    this.#inHand.add(task);
    void task.finally(() => this.#inHand.delete(task));
    return task;
  }
}
