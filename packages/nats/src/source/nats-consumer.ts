/**
 * A NATS JetStream source (spec §7.8): a durable pull consumer on an existing stream, read by one
 * fetch loop that asks for up to `batchSize` messages with a 1 s expiry and hands each message to
 * the inbox side (core's DeliveryHandler) as it arrives. The inbox store groups the calls that
 * arrive together into one insert (so a fetched batch is one commit, not `batchSize`), and each
 * message is acked once its own verdict says its row is committed. The next fetch starts only
 * once every message of the last one is settled, so the stream order holds across batches in the
 * rows' `created_at` (receipt time) and within a batch in their `scheduled_at` (insert order).
 *
 * Verdicts: stored, duplicate, dead row or filtered → ack; a store failure or an error → nak with
 * a delay (core's DoublingBackoff). A message is settled only on the connection it came on: after
 * a loss the ack is dropped with a WARN and the server delivers the message again once `ack_wait`
 * runs out, which the inbox deduplicates.
 *
 * A server that cannot be reached at start does not stop the start: the source keeps connecting
 * (250 ms doubling to 5 s) with readiness `down`, as the RabbitMQ source does. A missing stream or
 * a durable consumer with other settings stops the start (durable-consumer.ts); found later (the
 * stream deleted under a running source) it turns readiness `down` and the source checks again
 * with the same backoff. The start, that backoff, the close and the retry backoff are core's
 * BrokerSource, as on every broker. Readiness (`nats.<source>`) is the fetch loop running on an open
 * connection. A fetch asks for `batchSize` messages, or fewer while bodies are large, so that the
 * bodies in hand stay within the handler's byte budget (core's InHandWindow).
 */
import {
  jetstream,
  jetstreamManager,
  type Consumer,
  type ConsumerMessages,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  BrokerSource,
  type BrokerSourceArgs,
  type BrokerSourceOptions,
  InHandWindow,
  type NatsSourceConfig,
  type SourceConsumerDeps,
} from '@queuebox/core';
import { ConnectionState, closeConnection, errorText, openConnection } from '../connection.js';
import { toSourceDelivery } from './delivery.js';
import { ensureDurableConsumer } from './durable-consumer.js';

/** Spec §7.8: the connect timeout of a source. */
export const SOURCE_CONNECT_TIMEOUT_MS = 10_000;
/** Spec §7.8: the expiry of one fetch. */
export const FETCH_EXPIRES_MS = 1_000;
/**
 * A fetch of large messages gets 1 s per this many bytes asked for (at most 30 s): the client
 * ends a fetch at its expiry and drops what is still on the wire, which the server then holds
 * until ackWaitMs runs out, so a backlog of large messages crawled from one ackWaitMs to the next.
 */
export const FETCH_BYTES_PER_SECOND = 4 * 1_048_576;
const FETCH_EXPIRES_MAX_MS = 30_000;

export type NatsConsumerDeps = SourceConsumerDeps;
export type NatsConsumerOptions = Pick<BrokerSourceOptions, 'settleTimeoutMs'>;

const TEXTS = { broker: 'NATS', session: 'consumer', unit: 'message', again: ' after ackWaitMs' };

/** The connection, kept across sessions: the client re-establishes it after a loss. */
interface Link {
  readonly connection: NatsConnection;
  readonly state: ConnectionState;
  readonly jsm: JetStreamManager;
}

/** A link and the durable consumer checked on it. */
interface Session extends Link {
  readonly consumer: Consumer;
}

export class NatsSourceConsumer extends BrokerSource<Session> {
  readonly #config: NatsSourceConfig;
  /** Messages per fetch: `batchSize`, fewer while bodies are large (the handler's byte budget). */
  readonly #window: InHandWindow;
  /** Whether the handler bounds the bytes in hand (else the window is the count alone). */
  readonly #bytesBound: boolean;
  #link: Link | null = null;
  #fetching: ConsumerMessages | null = null;
  #loop: Promise<void> | null = null;

  constructor(name: string, config: NatsSourceConfig, ...args: BrokerSourceArgs) {
    super(name, { texts: TEXTS, errorText, retryRound: config.batchSize }, ...args);
    this.#config = config;
    this.#window = new InHandWindow(config.batchSize, this.handler.inHandBytes);
    this.#bytesBound = this.handler.inHandBytes !== undefined;
  }

  /**
   * The durable consumer on the connection (opened by the first session, reused by the next:
   * a stream deleted under the source or a fetch that failed asks for the consumer again, not
   * for a new connection).
   */
  protected override async open(): Promise<Session> {
    const link = this.#link ?? (await this.#openLink());
    await link.state.whenConnected(this.stopSignal);
    if (this.stopSignal.aborted) throw new Error('the source is closed');
    await ensureDurableConsumer(link.jsm, this.source, this.#config);
    const consumer = await jetstream(link.connection).consumers.get(
      this.#config.stream,
      this.#config.durable,
    );
    return { ...link, consumer };
  }

  protected override consuming(session: Session): void {
    this.#loop = this.#run(session);
  }

  protected override ready(session: Session): boolean {
    return session.state.connected;
  }

  protected override consumingText(): string {
    return `reads stream '${this.#config.stream}'`;
  }

  protected override async stopConsuming(): Promise<void> {
    this.#fetching?.stop();
    await this.#loop;
  }

  protected override async release(): Promise<void> {
    const link = this.#link;
    this.#link = null;
    if (link !== null) await closeConnection(link.connection);
  }

  async #openLink(): Promise<Link> {
    const connection = await openConnection({
      servers: this.#config.servers,
      credentials: this.#config,
      name: `queuebox source ${this.source}`,
      timeoutMs: SOURCE_CONNECT_TIMEOUT_MS,
    });
    if (this.stopSignal.aborted) {
      await closeConnection(connection);
      throw new Error('the source is closed');
    }
    // Until messages are seen, each may be as large as the server allows: the first fetch of a
    // backlog of 1 MB messages asked for `batchSize` of them at once, more than the server
    // buffers for one client (64 MB by default), which then dropped them until ackWaitMs.
    const maxPayload = connection.info?.max_payload;
    if (this.#bytesBound && typeof maxPayload === 'number' && maxPayload > 0)
      this.#window.observe(maxPayload);
    const link: Link = {
      connection,
      state: new ConnectionState(connection),
      jsm: await jetstreamManager(connection),
    };
    this.#link = link;
    return link;
  }

  /**
   * The fetch loop of one session; ends with close(), or with a fetch that failed on an open
   * connection (the stream or the consumer may be gone), which loses the session.
   */
  async #run(session: Session): Promise<void> {
    const signal = this.stopSignal;
    while (!signal.aborted) {
      if (!session.state.connected) {
        await session.state.whenConnected(signal);
        continue;
      }
      try {
        await this.#fetchOnce(session);
      } catch (error: unknown) {
        if (signal.aborted) break;
        // A loss shows in the connection state, and the client re-establishes it.
        if (!session.state.connected) continue;
        this.lost(
          session,
          `cannot fetch from stream '${this.#config.stream}': ${errorText(error)}`,
        );
        return;
      }
    }
  }

  /** One fetch: each message handed over as it arrives; resolves once all are settled. */
  async #fetchOnce(session: Session): Promise<void> {
    const expires = Math.min(
      FETCH_EXPIRES_MAX_MS,
      Math.max(FETCH_EXPIRES_MS, Math.ceil(this.#window.bytes() / FETCH_BYTES_PER_SECOND) * 1000),
    );
    const messages = await session.consumer.fetch({
      max_messages: this.#window.size(),
      expires,
    });
    this.#fetching = messages;
    // A loss ends the fetch: the client would pull again on the new connection for it, and
    // the loop's next fetch does that once the connection is back.
    const stopOnLoss = session.state.listen((connected) => {
      if (!connected) messages.stop();
    });
    const batch: Promise<void>[] = [];
    try {
      for await (const message of messages) {
        // The connection it came on: only there can it be settled.
        const epoch = session.state.epoch;
        this.#window.observe(message.data.byteLength);
        // Arrived after close(): back to the server at once, for another replica.
        if (this.stopSignal.aborted) {
          this.#settle(session, epoch, message, 'nak', 0);
          continue;
        }
        batch.push(
          this.handle(toSourceDelivery(message), (verdict) => {
            const delayMs = this.retryDelay(verdict);
            this.#settle(
              session,
              epoch,
              message,
              verdict.settle === 'ack' ? 'ack' : 'nak',
              delayMs,
            );
          }),
        );
      }
    } finally {
      stopOnLoss();
      this.#fetching = null;
      await Promise.all(batch);
    }
    const closedWith = await messages.closed();
    if (closedWith instanceof Error) throw closedWith;
  }

  #settle(session: Session, epoch: number, message: JsMsg, settle: 'ack' | 'nak', delayMs: number) {
    const open =
      session.state.connected && session.state.epoch === epoch && !session.connection.isClosed();
    if (open) {
      try {
        if (settle === 'ack') message.ack();
        else message.nak(delayMs > 0 ? delayMs : undefined);
        return;
      } catch {
        // The client refuses a publish on a connection that closed an instant ago.
      }
    }
    this.settleDropped(settle, 'its connection to NATS is gone');
  }
}
