/**
 * A RabbitMQ source (spec §7.6): consumes one queue with manual acks and hands each delivery to
 * the inbox side (core's DeliveryHandler), up to `prefetchCount` at once (basic.qos), so the
 * inbox store can group their inserts into one commit. While bodies are large the prefetch is
 * lowered so the bodies in hand stay within the handler's byte budget (core's InHandWindow),
 * and raised again once they are small.
 *
 * A delivery is acked only after the handler reports it durably handled (stored, duplicate, a
 * dead row, filtered); a `retry` is requeued after a backoff (core's DoublingBackoff). The settle goes
 * through the session the delivery came on; when that session is gone the settle is dropped with
 * a WARN and the broker delivers the message again, which the inbox deduplicates.
 *
 * A lost connection is re-established without a restart, after 250 ms doubling to 5 s between
 * attempts; readiness (`rabbitmq.<source>`) is `down` from the loss until a channel consumes
 * again. A broker that cannot be reached at start is treated the same way, so QueueBox starts
 * and consumes once it can; a queue that does not exist (without `declareQueue`) or that the
 * broker refuses stops the start, since waiting would not change it.
 */
import {
  DoublingBackoff,
  InHandWindow,
  QueueBoxError,
  ReconnectSchedule,
  sanitize,
  sleep,
  toError,
  type DeliveryHandler,
  type DeliveryVerdict,
  type Logger,
  type RabbitSourceConfig,
  type SourceConsumer,
  type SourceDelivery,
} from '@queuebox/core';
import type { ConsumeMessage } from 'amqplib';
import { errorText } from '../connection.js';
import { ConsumerSession } from './consumer-session.js';
import { convertHeaders } from './header-conversion.js';

/** How long `close()` lets deliveries in hand settle, as the Kafka and NATS sources do (§7.7, §7.8). */
export const SETTLE_TIMEOUT_MS = 30_000;
export const RECONNECT_INITIAL_MS = 250;
export const RECONNECT_MAX_MS = 5_000;

export interface RabbitConsumerDeps {
  readonly handler: DeliveryHandler;
  readonly logger: Logger;
}

export interface RabbitConsumerOptions {
  /** Test seams. */
  readonly settleTimeoutMs?: number;
  readonly retryBackoff?: DoublingBackoff;
}

export class RabbitSourceConsumer implements SourceConsumer {
  readonly source: string;
  readonly healthComponent: string;
  readonly #config: RabbitSourceConfig;
  readonly #handler: DeliveryHandler;
  readonly #logger: Logger;
  readonly #settleTimeoutMs: number;
  readonly #backoff: DoublingBackoff;
  /** The prefetch: `prefetchCount`, less while bodies are large (the handler's byte budget). */
  readonly #window: InHandWindow;
  /** Aborted by close(): ends backoff waits and the reconnect loop. */
  readonly #stop = new AbortController();
  readonly #inHand = new Set<Promise<void>>();
  #session: ConsumerSession | null = null;
  readonly #reconnect = new ReconnectSchedule(
    this.#stop.signal,
    RECONNECT_INITIAL_MS,
    RECONNECT_MAX_MS,
  );
  #connecting: Promise<void> | null = null;
  #closing: Promise<void> | null = null;

  constructor(
    name: string,
    config: RabbitSourceConfig,
    deps: RabbitConsumerDeps,
    options: RabbitConsumerOptions = {},
  ) {
    this.source = name;
    this.healthComponent = `rabbitmq.${name}`;
    this.#config = config;
    this.#handler = deps.handler;
    this.#logger = deps.logger;
    this.#settleTimeoutMs = options.settleTimeoutMs ?? SETTLE_TIMEOUT_MS;
    this.#backoff = options.retryBackoff ?? new DoublingBackoff(config.prefetchCount);
    this.#window = new InHandWindow(config.prefetchCount, deps.handler.inHandBytes);
    // The first prefetch is asked for before any size is known: sized for the largest body.
    const { inHandBytes, maxBodyBytes } = deps.handler;
    if (inHandBytes !== undefined && maxBodyBytes !== undefined && maxBodyBytes > 0)
      this.#window.observe(maxBodyBytes);
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return this.close();
    signal?.addEventListener('abort', () => void this.close(), { once: true });
    try {
      await this.#connect();
    } catch (error: unknown) {
      if (error instanceof QueueBoxError) {
        await this.close();
        throw error;
      }
      this.#logger.warn(
        `Source '${this.source}' cannot reach RabbitMQ yet, so it keeps trying in the background. Reason: ${errorText(error)}`,
      );
      this.#scheduleReconnect();
    }
  }

  isHealthy(): boolean {
    return this.#session?.isOpen === true;
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort();
    this.#reconnect.cancel();
    // A connect in progress finishes (or fails) before there is a session to close.
    await this.#connecting?.catch(() => undefined);
    const session = this.#session;
    if (session !== null) await session.stopConsuming();
    // Backoff waits ended with the abort: their requeues go out now, with the rest.
    let timer: NodeJS.Timeout | undefined;
    const settled = Promise.allSettled([...this.#inHand]).then(() => true);
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#settleTimeoutMs);
    });
    const allSettled = await Promise.race([settled, timedOut]);
    clearTimeout(timer);
    if (!allSettled) {
      this.#logger.warn(
        `Source '${this.source}' stopped with ${this.#inHand.size} message(s) still being handled; RabbitMQ delivers them again.`,
      );
    }
    this.#session = null;
    await session?.close();
  }

  #connect(): Promise<void> {
    const connecting = ConsumerSession.open({
      source: this.source,
      url: this.#config.connectionUrl,
      queue: this.#config.queueName,
      prefetchCount: this.#window.size(),
      declareQueue: this.#config.declareQueue,
      onDelivery: (session, message) => this.#onDelivery(session, message),
      onLost: (session, reason) => this.#onLost(session, reason),
    }).then(async (session) => {
      if (this.#stop.signal.aborted) {
        await session.close();
        return;
      }
      this.#session = session;
      this.#reconnect.connected();
    });
    this.#connecting = connecting;
    return connecting.finally(() => {
      if (this.#connecting === connecting) this.#connecting = null;
    });
  }

  #scheduleReconnect(): void {
    this.#reconnect.schedule(
      () => this.#connect(),
      () => {
        if (this.#session !== null)
          this.#logger.info(
            `Source '${this.source}' consumes queue '${this.#config.queueName}' again.`,
          );
      },
      (error: unknown) => {
        this.#logger.warn(
          `Source '${this.source}' could not reconnect to RabbitMQ; it tries again in ${this.#reconnect.nextDelayMs} ms. Reason: ${errorText(error)}`,
        );
        this.#scheduleReconnect();
      },
    );
  }

  #onLost(session: ConsumerSession, reason: string): void {
    if (this.#session !== session) return;
    this.#session = null;
    if (this.#stop.signal.aborted) return;
    this.#logger.warn(
      `Source '${this.source}' lost its RabbitMQ channel and reconnects. Reason: ${reason}`,
    );
    this.#scheduleReconnect();
  }

  #onDelivery(session: ConsumerSession, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled the consumer (the queue was deleted): start over on a new channel.
      void session.close().then(() => this.#onLost(session, 'the broker cancelled the consumer'));
      return;
    }
    // Delivered between close() and the broker's cancel-ok: left unacked, the close requeues it.
    if (this.#stop.signal.aborted) return;
    this.#window.observe(message.content.byteLength);
    const prefetch = this.#window.size();
    if (prefetch !== session.prefetch) void session.resize(prefetch);
    const task = this.#handle(session, message);
    this.#inHand.add(task);
    void task.finally(() => this.#inHand.delete(task));
  }

  async #handle(session: ConsumerSession, message: ConsumeMessage): Promise<void> {
    let verdict: DeliveryVerdict;
    try {
      verdict = await this.#handler.handle(toSourceDelivery(message));
    } catch (error: unknown) {
      // The port promises a verdict; a handler that throws anyway sends the message back.
      verdict = { settle: 'retry', reason: sanitize(toError(error).message) };
    }
    if (verdict.settle === 'ack') {
      this.#backoff.reset();
      this.#settle(session, message, 'ack');
      return;
    }
    await sleep(this.#backoff.next(), this.#stop.signal);
    this.#settle(session, message, 'requeue');
  }

  #settle(session: ConsumerSession, message: ConsumeMessage, verdict: 'ack' | 'requeue'): void {
    if (session.settle(message, verdict)) return;
    if (verdict === 'ack') {
      this.#logger.warn(
        `The acknowledgement of a message of source '${this.source}' was dropped because its channel is closed; RabbitMQ delivers it again and the inbox deduplicates it.`,
      );
    } else {
      this.#logger.debug(
        `The requeue of a message of source '${this.source}' was dropped because its channel is closed; RabbitMQ delivers it again.`,
      );
    }
  }
}

/** What the inbox side reads of one AMQP delivery (spec §7.2 RabbitMQ column). */
export function toSourceDelivery(message: ConsumeMessage): SourceDelivery {
  const { properties } = message;
  const fallbacks: {
    -readonly [K in keyof SourceDelivery['fallbacks']]: SourceDelivery['fallbacks'][K];
  } = {};
  if (typeof properties.messageId === 'string') fallbacks.idempotencyKey = properties.messageId;
  if (typeof properties.correlationId === 'string')
    fallbacks.correlationId = properties.correlationId;
  // AMQP timestamps are seconds since the epoch.
  if (typeof properties.timestamp === 'number' && Number.isFinite(properties.timestamp)) {
    const time = new Date(properties.timestamp * 1000);
    if (!Number.isNaN(time.getTime())) fallbacks.publishTime = time;
  }
  return {
    body: message.content,
    headers: convertHeaders(properties.headers),
    fallbacks,
  };
}
