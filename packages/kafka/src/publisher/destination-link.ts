/**
 * One Kafka destination (spec §6.3): its client and idempotent producer (`acks` all), opened by
 * the first publish, and the queue of rows waiting for it, sent one `sendBatch` at a time
 * (send-batches.ts says why).
 *
 * Every publish has its own budget of `timeoutMs`, from the call to the ack, waiting in the queue
 * included (the reference's `delivery.timeout.ms`); a row without its ack by then fails, whatever
 * its batch is doing. kafkajs cannot cancel a send, so a send that outlives every row in it (a
 * broker that stopped answering) would hold the destination for ever: the link then discards that
 * producer and sends the next batch on a new one, whose new producer id starts its own sequence
 * numbers, so the abandoned send cannot disturb it. A late ack of the abandoned send is ignored
 * (the row already failed and is sent again: at least once, as always).
 */
import type {
  CancelListener,
  KafkaDestinationConfig,
  Logger,
  PublishOutcome,
  PublishRequest,
} from '@queuebox/core';
import {
  DeadlineEntry,
  DeadlineQueue,
  publishFailed,
  sleep,
  unwatchClaim,
  watchClaim,
} from '@queuebox/core';
import { checkBrokerSpeaks } from '../broker-check.js';
import { kafkaError } from '../classify-error.js';
import { closeWithin, createClient } from '../connection.js';
import { type ISocketFactory, type Producer, type TopicMessages } from '../kafkajs.js';
import { classifyPublishError, connectUnanswered, type PublishFailure } from './publish-failure.js';
import { groupByTopic, takeBatch, type Batchable } from './send-batches.js';
import { StickyPartitioning } from './sticky-partitioner.js';
import { staticHeaderMap, wireRecord, type WireRecord } from './wire-record.js';

/** Spec §6.3: `request.timeout.ms = max(1000, timeoutMs − 1000)`. */
export function requestTimeoutOf(timeoutMs: number): number {
  return Math.max(1000, timeoutMs - 1000);
}

/** kafkajs's own retries inside one send; the row's budget bounds the whole of it anyway. */
const PRODUCER_RETRY = { retries: 5, initialRetryTime: 100, maxRetryTime: 5_000 } as const;

/** The pause before a batch whose connect went unanswered is tried on a new producer. */
const RECONNECT_PAUSE_MS = 200;

export interface DestinationLinkOptions {
  readonly name: string;
  readonly config: KafkaDestinationConfig;
  readonly logger: Logger;
  /** Test seam: route the client's sockets (through a fault proxy). */
  readonly socketFactory?: ISocketFactory;
}

/**
 * One row on its way: a cancel listener of its claim (no AbortSignal made for it) and an entry of
 * the link's budget queue (one timer for every row), so a row costs no timer or event listener of
 * its own.
 */
class Pending extends DeadlineEntry implements Batchable, CancelListener {
  settled = false;
  readonly done: Promise<PublishOutcome>;
  #resolve!: (outcome: PublishOutcome) => void;

  constructor(
    readonly record: WireRecord,
    readonly request: PublishRequest,
    private readonly deadlines: DeadlineQueue<Pending>,
  ) {
    super();
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }

  get topic(): string {
    return this.record.topic;
  }

  get bytes(): number {
    return this.record.bytes;
  }

  /** The claim on the row ended (its lease lost, the poller gave up). */
  cancelled(): void {
    this.settle(ABANDONED);
  }

  expire(): void {
    const ms = this.deadlines.budgetMs;
    this.settle(failure(`Publish not acknowledged: Kafka sent no ack within ${ms} ms`));
  }

  settle(outcome: PublishOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.deadlines.remove(this);
    unwatchClaim(this.request, this);
    this.#resolve(outcome);
  }
}

interface ProducerSlot {
  readonly producer: Producer;
  readonly connected: Promise<void>;
}

export class DestinationLink {
  readonly #config: KafkaDestinationConfig;
  readonly #staticHeaders;
  readonly #client;
  readonly #requestTimeoutMs: number;
  #queue: Pending[] = [];
  /**
   * Rows not settled yet, oldest first, each with the budget of `timeoutMs`. The sends and
   * sockets keep the process up, never its timer alone.
   */
  readonly #unsettled: DeadlineQueue<Pending>;
  #pumpQueued = false;
  #sending = false;
  #slot: ProducerSlot | null = null;
  #closed = false;
  #brokerVerified = false;
  readonly #partitioning = new StickyPartitioning();
  readonly #socketFactory: ISocketFactory | undefined;

  constructor(options: DestinationLinkOptions) {
    const { config } = options;
    this.#socketFactory = options.socketFactory;
    this.#config = config;
    this.#staticHeaders = staticHeaderMap(config.headers);
    this.#requestTimeoutMs = requestTimeoutOf(config.timeoutMs);
    this.#unsettled = new DeadlineQueue<Pending>(config.timeoutMs, { unref: true });
    // The client only holds settings: nothing connects before the first publish.
    this.#client = createClient({
      clientId: `queuebox-destination-${options.name}`,
      path: `destinations.${options.name}`,
      bootstrapServers: config.bootstrapServers,
      security: config,
      connectTimeoutMs: Math.min(this.#requestTimeoutMs, 10_000),
      requestTimeoutMs: this.#requestTimeoutMs,
      logger: options.logger,
      ...(options.socketFactory === undefined ? {} : { socketFactory: options.socketFactory }),
    });
  }

  publish(request: PublishRequest): Promise<PublishOutcome> {
    const wire = wireRecord(request, this.#config.keyTemplate, this.#staticHeaders);
    // The record itself cannot be sent (no topic, or a name Kafka refuses): the same row never will.
    if (!wire.ok) return Promise.resolve(failure(wire.error, false));
    if (this.#closed) return Promise.resolve(CLOSED);
    const pending = new Pending(wire.record, request, this.#unsettled);
    if (!watchClaim(request, pending)) return Promise.resolve(ABANDONED);
    this.#unsettled.add(pending);
    this.#queue.push(pending);
    // Rows published in the same tick share the batch: the pump starts on the next microtask.
    if (!this.#pumpQueued) {
      this.#pumpQueued = true;
      queueMicrotask(() => {
        this.#pumpQueued = false;
        this.#pump();
      });
    }
    return pending.done;
  }

  /** Fails every row not yet acknowledged and disconnects within a bound. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#unsettled.entries()) pending.settle(CLOSED);
    this.#queue = [];
    const slot = this.#slot;
    this.#slot = null;
    if (slot !== null) await closeWithin(slot.producer.disconnect());
  }

  #pump(): void {
    if (this.#sending || this.#closed) return;
    const { batch, rest } = takeBatch(this.#queue);
    this.#queue = rest;
    if (batch.length === 0) return;
    this.#sending = true;
    void this.#sendBounded(batch).finally(() => {
      this.#sending = false;
      this.#pump();
    });
  }

  /**
   * Sends `batch` and settles its rows by the answer, or gives up once every row of it has
   * settled otherwise (budget, abort, close): then the producer is discarded, since its send
   * may still be running.
   */
  async #sendBounded(batch: Pending[]): Promise<void> {
    const slot = this.#producer();
    const sent = slot.connected
      .then(() => this.#send(slot, batch))
      .catch(async (error: unknown) => {
        // The connect failed (the send reports its own failures): the next batch connects anew.
        this.#retire(slot);
        if (connectUnanswered(error)) {
          // A broker that answers slowly may still answer within the rows' budget: they go back
          // to the head of the queue after a pause, and fail by their own timer if it never does.
          await sleep(RECONNECT_PAUSE_MS);
          if (!this.#closed) this.#queue.unshift(...batch.filter((pending) => !pending.settled));
          return;
        }
        const failed = classifyPublishError(error);
        for (const pending of batch) pending.settle(thrown(failed.text, error));
      });
    let finished = false;
    const ended = sent.then(() => {
      finished = true;
    });
    await Promise.race([ended, Promise.all(batch.map((pending) => pending.done))]);
    // A send settles its own rows a few microtasks before it returns, so every row settled is no
    // sign yet that the send is stuck: it is once the send has still not ended a turn later.
    // Retiring a producer after every batch would cost a new producer id (InitProducerId) each.
    if (!finished) await Promise.race([ended, new Promise((resolve) => setImmediate(resolve))]);
    if (!finished && !this.#closed) {
      this.#retire(slot);
      // kafkajs's retries may reconnect the discarded producer; disconnect it once they end.
      void sent.then(() => closeWithin(slot.producer.disconnect()));
    }
  }

  /** One sendBatch; a refused topic or record is sent again on its own (publish-failure.ts). */
  async #send(slot: ProducerSlot, batch: Pending[]): Promise<void> {
    const live = batch.filter((pending) => !pending.settled);
    if (live.length === 0) return;
    this.#partitioning.nextRequest();
    try {
      await slot.producer.sendBatch({
        acks: -1,
        timeout: this.#requestTimeoutMs,
        topicMessages: topicMessages(live),
      });
      for (const pending of live) pending.settle(SUCCESS);
    } catch (error: unknown) {
      const failed = classifyPublishError(error);
      if (failed.renewProducer) this.#retire(slot);
      const groups =
        failed.scope === 'topic'
          ? groupByTopic(live)
          : failed.scope === 'record'
            ? live.map((pending) => [pending])
            : [live];
      if (groups.length === 1 || failed.renewProducer) {
        const text = failureText(failed, live);
        for (const pending of live) pending.settle(thrown(text, error));
        return;
      }
      for (const group of groups) {
        if (this.#closed) return;
        await this.#send(slot, group).catch((again: unknown) => {
          const text = classifyPublishError(again).text;
          for (const pending of group) pending.settle(thrown(text, again));
        });
      }
    }
  }

  #producer(): ProducerSlot {
    if (this.#slot !== null) return this.#slot;
    const producer = this.#client.producer({
      idempotent: true,
      // One request in flight per broker connection: the order of the rows of one key holds.
      maxInFlightRequests: 1,
      allowAutoTopicCreation: true,
      // The Java client's default partitioner: murmur2 of a key, sticky for unkeyed records.
      createPartitioner: this.#partitioning.create,
      retry: PRODUCER_RETRY,
    });
    const slot: ProducerSlot = {
      producer,
      connected: this.#verifyBroker().then(() => producer.connect()),
    };
    slot.connected.catch(() => {
      // A failed connect is reported by the batch that waited for it; the next batch retries.
      this.#retire(slot);
    });
    this.#slot = slot;
    return slot;
  }

  /** Once per link: a broker QueueBox cannot speak to fails the rows with the reason. */
  async #verifyBroker(): Promise<void> {
    if (this.#brokerVerified) return;
    await checkBrokerSpeaks({
      bootstrapServers: this.#config.bootstrapServers,
      ssl: this.#config.securityProtocol.endsWith('SSL'),
      timeoutMs: Math.min(this.#requestTimeoutMs, 5_000),
      ...(this.#socketFactory === undefined ? {} : { socketFactory: this.#socketFactory }),
    });
    this.#brokerVerified = true;
  }

  #retire(slot: ProducerSlot): void {
    if (this.#slot !== slot) return;
    this.#slot = null;
    void closeWithin(slot.producer.disconnect());
  }
}

/** A refusal of one topic names it: the broker's text does not. */
function failureText(failed: PublishFailure, rows: readonly Pending[]): string {
  const topic = rows[0]?.topic;
  if (failed.scope !== 'topic' || topic === undefined) return failed.text;
  return rows.every((pending) => pending.topic === topic)
    ? `${failed.text} on topic '${topic}'`
    : failed.text;
}

function topicMessages(entries: readonly Pending[]): TopicMessages[] {
  return groupByTopic(entries).map((group) => ({
    topic: group[0]!.topic,
    messages: group.map((pending) => pending.record.message),
  }));
}

const SUCCESS: PublishOutcome = { ok: true };
const CLOSED: PublishOutcome = {
  ok: false,
  error: publishFailed('Publish failed: the publisher is closed'),
};
const ABANDONED: PublishOutcome = {
  ok: false,
  error: publishFailed('Publish abandoned: the claim on the message ended'),
};

function failure(text: string, retryable = true): PublishOutcome {
  // Every failure takes the retry path of spec §4.5, decided by the poller from the row.
  return { ok: false, error: publishFailed(text, retryable) };
}

/** What kafkajs threw, classified, under the text the row and the logs show. */
function thrown(text: string, error: unknown): PublishOutcome {
  return { ok: false, error: kafkaError(error, text) };
}
