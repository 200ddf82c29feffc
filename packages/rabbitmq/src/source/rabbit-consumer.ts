/**
 * A RabbitMQ source (spec §7.6): consumes one queue with manual acks and hands each delivery to
 * the inbox side (core's DeliveryHandler), up to `prefetchCount` at once (basic.qos), so the
 * inbox store can group their inserts into one commit. While bodies are large the prefetch is
 * lowered so the bodies in hand stay within the handler's byte budget (core's InHandWindow),
 * and raised again once they are small.
 *
 * A delivery is acked only after the handler reports it durably handled (stored, duplicate, a
 * dead row, filtered); a `retry` is requeued after a backoff. The settle goes
 * through the session the delivery came on; when that session is gone the settle is dropped with
 * a WARN and the broker delivers the message again, which the inbox deduplicates.
 *
 * The start, the reconnect after a loss (250 ms doubling to 5 s between attempts), the retry
 * backoff and the close are core's BrokerSource, as on every broker; readiness (`rabbitmq.<source>`) is `down` from the loss until a channel consumes
 * again. A broker that cannot be reached at start is treated the same way, so QueueBox starts
 * and consumes once it can; a queue that does not exist (without `declareQueue`) or that the
 * broker refuses stops the start, since waiting would not change it.
 */
import {
  BrokerSource,
  InHandWindow,
  type BrokerSourceArgs,
  type BrokerSourceOptions,
  type RabbitSourceConfig,
  type SourceConsumerDeps,
  type SourceDelivery,
} from '@queuebox/core';
import type { ConsumeMessage } from 'amqplib';
import { errorText } from '../connection.js';
import { ConsumerSession } from './consumer-session.js';
import { convertHeaders } from './header-conversion.js';

export type RabbitConsumerDeps = SourceConsumerDeps;
export type RabbitConsumerOptions = BrokerSourceOptions;

const TEXTS = { broker: 'RabbitMQ', session: 'channel', unit: 'message', again: '' };

export class RabbitSourceConsumer extends BrokerSource<ConsumerSession> {
  readonly #config: RabbitSourceConfig;
  /** The prefetch: `prefetchCount`, less while bodies are large (the handler's byte budget). */
  readonly #window: InHandWindow;

  constructor(name: string, config: RabbitSourceConfig, ...args: BrokerSourceArgs) {
    super(name, { texts: TEXTS, errorText, retryRound: config.prefetchCount }, ...args);
    this.#config = config;
    this.#window = new InHandWindow(config.prefetchCount, this.handler.inHandBytes);
    // The first prefetch is asked for before any size is known: sized for the largest body.
    const { inHandBytes, maxBodyBytes } = this.handler;
    if (inHandBytes !== undefined && maxBodyBytes !== undefined && maxBodyBytes > 0)
      this.#window.observe(maxBodyBytes);
  }

  protected override open(): Promise<ConsumerSession> {
    return ConsumerSession.open({
      source: this.source,
      url: this.#config.connectionUrl,
      queue: this.#config.queueName,
      prefetchCount: this.#window.size(),
      declareQueue: this.#config.declareQueue,
      onDelivery: (session, message) => this.#onDelivery(session, message),
      onLost: (session, reason) => this.lost(session, reason),
    });
  }

  protected override ready(session: ConsumerSession): boolean {
    return session.isOpen;
  }

  protected override consumingText(): string {
    return `consumes queue '${this.#config.queueName}'`;
  }

  protected override async stopConsuming(session: ConsumerSession | null): Promise<void> {
    await session?.stopConsuming();
  }

  protected override async release(session: ConsumerSession | null): Promise<void> {
    await session?.close();
  }

  #onDelivery(session: ConsumerSession, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled the consumer (the queue was deleted): start over on a new channel.
      void session.close().then(() => this.lost(session, 'the broker cancelled the consumer'));
      return;
    }
    // Delivered between close() and the broker's cancel-ok: left unacked, the close requeues it.
    if (this.stopSignal.aborted) return;
    this.#window.observe(message.content.byteLength);
    const prefetch = this.#window.size();
    if (prefetch !== session.prefetch) void session.resize(prefetch);
    void this.handle(toSourceDelivery(message), async (verdict) => {
      const delayMs = this.retryDelay(verdict);
      if (verdict.settle === 'ack') return this.#settle(session, message, 'ack');
      await this.pause(delayMs);
      this.#settle(session, message, 'requeue');
    });
  }

  /** Through the session the delivery came on: a delivery tag means nothing on another channel. */
  #settle(session: ConsumerSession, message: ConsumeMessage, settle: 'ack' | 'requeue'): void {
    if (!session.settle(message, settle)) this.settleDropped(settle, 'its channel is closed');
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
