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
 * with the same backoff. Readiness (`nats.<source>`) is the fetch loop running on an open
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
  DoublingBackoff,
  InHandWindow,
  QueueBoxError,
  sanitize,
  sleep,
  toError,
  type DeliveryHandler,
  type DeliveryVerdict,
  type Logger,
  type NatsSourceConfig,
  type SourceConsumer,
} from '@queuebox/core';
import { ConnectionState, closeConnection, errorText, openConnection } from '../connection.js';
import { toSourceDelivery } from './delivery.js';
import { apiErrorCode, ensureDurableConsumer, MISSING_RESOURCE_CODES } from './durable-consumer.js';

/** Spec §7.8: how long `close()` lets messages in hand settle. */
export const SETTLE_TIMEOUT_MS = 30_000;
/** Spec §7.8: the connect timeout of a source. */
export const SOURCE_CONNECT_TIMEOUT_MS = 10_000;
/** Spec §7.8: the expiry of one fetch. */
export const FETCH_EXPIRES_MS = 1_000;
/**
 * A fetch of large messages gets 1 s per this many bytes asked for (at most 30 s): the client
 * ends a fetch at its expiry and drops what is still on the wire, which the server then holds
 * until ackWaitMs runs out. 100 messages of 1 MB took over 50 s instead of 5 that way.
 */
export const FETCH_BYTES_PER_SECOND = 4 * 1_048_576;
const FETCH_EXPIRES_MAX_MS = 30_000;
export const RETRY_INITIAL_MS = 250;
export const RETRY_MAX_MS = 5_000;

export interface NatsConsumerDeps {
  readonly handler: DeliveryHandler;
  readonly logger: Logger;
}

export interface NatsConsumerOptions {
  /** Test seam. */
  readonly settleTimeoutMs?: number;
}

interface Session {
  readonly connection: NatsConnection;
  readonly state: ConnectionState;
  readonly jsm: JetStreamManager;
  /** Null until the durable consumer is checked, and again after it went missing. */
  consumer: Consumer | null;
}

export class NatsSourceConsumer implements SourceConsumer {
  readonly source: string;
  readonly healthComponent: string;
  readonly #config: NatsSourceConfig;
  readonly #handler: DeliveryHandler;
  readonly #logger: Logger;
  readonly #settleTimeoutMs: number;
  readonly #backoff: DoublingBackoff;
  /** Messages per fetch: `batchSize`, fewer while bodies are large (the handler's byte budget). */
  readonly #window: InHandWindow;
  /** Whether the handler bounds the bytes in hand (else the window is the count alone). */
  readonly #bytesBound: boolean;
  /** Aborted by close(): ends the loop, its waits and the fetch in progress. */
  readonly #stop = new AbortController();
  readonly #inHand = new Set<Promise<void>>();
  #session: Session | null = null;
  #fetching: ConsumerMessages | null = null;
  #loop: Promise<void> | null = null;
  #fetchFailing = false;
  #closing: Promise<void> | null = null;

  constructor(
    name: string,
    config: NatsSourceConfig,
    deps: NatsConsumerDeps,
    options: NatsConsumerOptions = {},
  ) {
    this.source = name;
    this.healthComponent = `nats.${name}`;
    this.#config = config;
    this.#handler = deps.handler;
    this.#logger = deps.logger;
    this.#settleTimeoutMs = options.settleTimeoutMs ?? SETTLE_TIMEOUT_MS;
    this.#backoff = new DoublingBackoff(config.batchSize);
    this.#window = new InHandWindow(config.batchSize, deps.handler.inHandBytes);
    this.#bytesBound = deps.handler.inHandBytes !== undefined;
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return this.close();
    signal?.addEventListener('abort', () => void this.close(), { once: true });
    try {
      const session = await this.#openSession();
      await this.#ensureConsumer(session);
    } catch (error: unknown) {
      if (error instanceof QueueBoxError) {
        await this.close();
        throw error;
      }
      this.#logger.warn(
        `Source '${this.source}' cannot reach NATS yet, so it keeps trying in the background. Reason: ${errorText(error)}`,
      );
    }
    if (this.#stop.signal.aborted) return;
    this.#loop = this.#run();
  }

  isHealthy(): boolean {
    const session = this.#session;
    return (
      !this.#stop.signal.aborted &&
      session !== null &&
      session.consumer !== null &&
      session.state.connected &&
      !this.#fetchFailing
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort();
    this.#fetching?.stop();
    await this.#loop;
    let timer: NodeJS.Timeout | undefined;
    const settled = Promise.allSettled([...this.#inHand]).then(() => true);
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#settleTimeoutMs);
    });
    const allSettled = await Promise.race([settled, timedOut]);
    clearTimeout(timer);
    if (!allSettled) {
      this.#logger.warn(
        `Source '${this.source}' stopped with ${this.#inHand.size} message(s) still being handled; NATS delivers them again after ackWaitMs.`,
      );
    }
    const session = this.#session;
    this.#session = null;
    if (session !== null) await closeConnection(session.connection);
  }

  async #openSession(): Promise<Session> {
    const connection = await openConnection({
      servers: this.#config.servers,
      credentials: this.#config,
      name: `queuebox source ${this.source}`,
      timeoutMs: SOURCE_CONNECT_TIMEOUT_MS,
    });
    if (this.#stop.signal.aborted) {
      await closeConnection(connection);
      throw new Error('the source is closed');
    }
    // Until messages are seen, each may be as large as the server allows: the first fetch of a
    // backlog of 1 MB messages asked for `batchSize` of them at once, more than the server
    // buffers for one client (64 MB by default), which then dropped them until ackWaitMs.
    const maxPayload = connection.info?.max_payload;
    if (this.#bytesBound && typeof maxPayload === 'number' && maxPayload > 0)
      this.#window.observe(maxPayload);
    const session: Session = {
      connection,
      state: new ConnectionState(connection),
      jsm: await jetstreamManager(connection),
      consumer: null,
    };
    this.#session = session;
    return session;
  }

  async #ensureConsumer(session: Session): Promise<void> {
    await ensureDurableConsumer(session.jsm, this.source, this.#config);
    session.consumer = await jetstream(session.connection).consumers.get(
      this.#config.stream,
      this.#config.durable,
    );
  }

  /** The fetch loop; ends with close(). Every wait in it ends with the stop signal. */
  async #run(): Promise<void> {
    const { signal } = this.#stop;
    let delay = RETRY_INITIAL_MS;
    let failing = false;
    const retryLater = async (what: string, error: unknown) => {
      if (!failing || delay === RETRY_MAX_MS) {
        this.#logger.warn(
          `Source '${this.source}' ${what}; it tries again in ${delay} ms. Reason: ${errorText(error)}`,
        );
      }
      failing = true;
      await sleep(delay, signal);
      delay = Math.min(RETRY_MAX_MS, delay * 2);
    };
    while (!signal.aborted) {
      const session = this.#session;
      if (session === null) {
        try {
          await this.#openSession();
        } catch (error: unknown) {
          await retryLater('cannot connect to NATS', error);
        }
        continue;
      }
      if (!session.state.connected) {
        await session.state.whenConnected(signal);
        continue;
      }
      if (session.consumer === null) {
        try {
          await this.#ensureConsumer(session);
        } catch (error: unknown) {
          await retryLater(
            `cannot read stream '${this.#config.stream}' through durable consumer '${this.#config.durable}'`,
            error,
          );
        }
        continue;
      }
      try {
        await this.#fetchOnce(session, session.consumer);
        this.#fetchFailing = false;
        if (failing) {
          this.#logger.info(`Source '${this.source}' reads stream '${this.#config.stream}' again.`);
        }
        failing = false;
        delay = RETRY_INITIAL_MS;
      } catch (error: unknown) {
        if (signal.aborted) break;
        // A loss shows in the connection state; anything else is the stream's or consumer's.
        if (!session.state.connected) continue;
        this.#fetchFailing = true;
        const code = apiErrorCode(error);
        if (code === undefined || MISSING_RESOURCE_CODES.has(code) || isMissing(error)) {
          session.consumer = null;
        }
        await retryLater(`cannot fetch from stream '${this.#config.stream}'`, error);
      }
    }
  }

  /** One fetch: each message handed over as it arrives; resolves once all are settled. */
  async #fetchOnce(session: Session, consumer: Consumer): Promise<void> {
    const expires = Math.min(
      FETCH_EXPIRES_MAX_MS,
      Math.max(FETCH_EXPIRES_MS, Math.ceil(this.#window.bytes() / FETCH_BYTES_PER_SECOND) * 1000),
    );
    const messages = await consumer.fetch({
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
        if (this.#stop.signal.aborted) {
          this.#settle(session, epoch, message, { kind: 'nak', delayMs: 0 });
          continue;
        }
        const task = this.#handle(session, epoch, message);
        this.#inHand.add(task);
        void task.finally(() => this.#inHand.delete(task));
        batch.push(task);
      }
    } finally {
      stopOnLoss();
      this.#fetching = null;
      await Promise.all(batch);
    }
    const closedWith = await messages.closed();
    if (closedWith instanceof Error) throw closedWith;
  }

  async #handle(session: Session, epoch: number, message: JsMsg): Promise<void> {
    let verdict: DeliveryVerdict;
    try {
      verdict = await this.#handler.handle(toSourceDelivery(message));
    } catch (error: unknown) {
      // The port promises a verdict; a handler that throws anyway sends the message back.
      verdict = { settle: 'retry', reason: sanitize(toError(error).message) };
    }
    if (verdict.settle === 'ack') {
      this.#backoff.reset();
      this.#settle(session, epoch, message, { kind: 'ack' });
    } else {
      this.#settle(session, epoch, message, { kind: 'nak', delayMs: this.#backoff.next() });
    }
  }

  #settle(
    session: Session,
    epoch: number,
    message: JsMsg,
    settle: { readonly kind: 'ack' } | { readonly kind: 'nak'; readonly delayMs: number },
  ): void {
    const open =
      session.state.connected && session.state.epoch === epoch && !session.connection.isClosed();
    if (open) {
      try {
        if (settle.kind === 'ack') message.ack();
        else message.nak(settle.delayMs > 0 ? settle.delayMs : undefined);
        return;
      } catch {
        // The client refuses a publish on a connection that closed an instant ago.
      }
    }
    if (settle.kind === 'ack') {
      this.#logger.warn(
        `The acknowledgement of a message of source '${this.source}' was dropped because its connection to NATS is gone; NATS delivers it again after ackWaitMs and the inbox deduplicates it.`,
      );
    } else {
      this.#logger.debug(
        `The nak of a message of source '${this.source}' was dropped because its connection to NATS is gone; NATS delivers it again after ackWaitMs.`,
      );
    }
  }
}

/** The fetch of a consumer or stream deleted under it ends with one of these texts. */
function isMissing(error: unknown): boolean {
  const text = toError(error).message.toLowerCase();
  return (
    text.includes('consumer deleted') ||
    text.includes('no responders') ||
    text.includes('not found')
  );
}
