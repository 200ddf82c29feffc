/**
 * One connection's worth of a RabbitMQ source: the connection, the channel that consumes the
 * queue under `basic.qos(prefetchCount)`, and the consumer tag. Every ack and nack of the
 * session's deliveries goes through its channel, and only while that channel is open: a delivery
 * tag means nothing on another channel (acking it there would ack some other message or close the
 * channel), so a settle for a session that is gone is dropped and the broker delivers the
 * message again.
 */
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { QueueBoxError, settledWithin } from '@queuebox/core';
import { CLOSE_GRACE_MS, closeConnection, errorText, openConnection } from '../connection.js';
import { decodeHeadersExactly } from './exact-headers.js';

/** Connect and handshake of a source connection (a source waits; a publish attempt does not). */
export const SOURCE_CONNECT_TIMEOUT_MS = 10_000;

export interface SessionOptions {
  readonly source: string;
  readonly url: string;
  readonly queue: string;
  readonly prefetchCount: number;
  readonly declareQueue: boolean;
  /** A delivery; null when the broker cancelled the consumer (the queue was deleted). */
  readonly onDelivery: (session: ConsumerSession, message: ConsumeMessage | null) => void;
  /** The connection or the channel closed (not by `close()`); called once. */
  readonly onLost: (session: ConsumerSession, reason: string) => void;
}

export class ConsumerSession {
  #open = true;
  /** Set once consuming: a loss before that is the failed open's, not the consumer's to repair. */
  #ready = false;
  #reason: string | null = null;
  #consumerTag: string | null = null;
  #prefetch: number;
  #stopped = false;
  /** Deliveries of this session not yet settled, and who waits for none to be left. */
  #unsettled = 0;
  #drained: (() => void)[] = [];
  /** Resizes run one after another: each cancels the consumer the last one started. */
  #resizing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly model: ChannelModel,
    private readonly channel: Channel,
    private readonly options: SessionOptions,
  ) {
    this.#prefetch = options.prefetchCount;
    model.on('error', (error: unknown) => (this.#reason ??= errorText(error)));
    channel.on('error', (error: unknown) => (this.#reason ??= errorText(error)));
    model.on('close', () => this.#lost('the connection to the broker closed'));
    channel.on('close', () => this.#lost('the channel closed'));
  }

  /**
   * Connects, sets the prefetch, checks (or declares) the queue and starts consuming. A queue
   * that is missing or refused rejects with a `config_invalid` QueueBoxError naming it; any other
   * failure rejects with the broker's reason.
   */
  static async open(options: SessionOptions): Promise<ConsumerSession> {
    const model = await openConnection(options.url, {
      connectionName: `queuebox source ${options.source}`,
      timeoutMs: SOURCE_CONNECT_TIMEOUT_MS,
    });
    decodeHeadersExactly(model);
    let early: string | null = null;
    const onEarly = (error: unknown) => (early ??= errorText(error));
    model.on('error', onEarly);
    let session: ConsumerSession | null = null;
    try {
      const channel = await model.createChannel();
      channel.on('error', onEarly);
      session = new ConsumerSession(model, channel, options);
      await channel.prefetch(options.prefetchCount);
      await session.#queue();
      session.#consumerTag = await session.#consume();
      if (!session.#open) throw new Error(session.#reason ?? 'the channel closed');
      session.#ready = true;
      model.off('error', onEarly);
      channel.off('error', onEarly);
      return session;
    } catch (error: unknown) {
      if (session !== null) session.#open = false;
      await closeConnection(model);
      if (error instanceof QueueBoxError) throw error;
      throw new Error(`Consuming queue '${options.queue}' failed: ${early ?? errorText(error)}`, {
        cause: error,
      });
    }
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** The prefetch the current consumer was started with. */
  get prefetch(): number {
    return this.#prefetch;
  }

  /**
   * Consumes on with another prefetch. basic.qos applies to consumers started after it, so the
   * consumer is cancelled and started again; deliveries in hand stay this channel's to settle.
   * A smaller prefetch starts only once those are settled: the new consumer's window comes on
   * top of them, so starting at once would hold more than either window. A failure leaves the
   * channel to its error handlers (the session is then lost).
   */
  resize(prefetch: number): Promise<void> {
    this.#resizing = this.#resizing.then(async () => {
      if (!this.#open || this.#stopped || prefetch === this.#prefetch) return;
      const previous = this.#consumerTag;
      if (previous === null) return;
      const shrinking = prefetch < this.#prefetch;
      this.#prefetch = prefetch;
      try {
        await this.channel.cancel(previous);
        if (shrinking) await this.#drain();
        if (this.#stopped || !this.#open) return;
        await this.channel.prefetch(prefetch);
        const tag = await this.#consume();
        if (this.#stopped) await this.channel.cancel(tag);
        else this.#consumerTag = tag;
      } catch {
        // The channel closed meanwhile; its close handler reports the loss.
      }
    });
    return this.#resizing;
  }

  /** Resolves once no delivery of this session is unsettled, or the session closed. */
  #drain(): Promise<void> {
    if (this.#unsettled === 0 || !this.#open) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  async #consume(): Promise<string> {
    const { consumerTag } = await this.channel.consume(
      this.options.queue,
      (message) => {
        if (message !== null) this.#unsettled += 1;
        this.options.onDelivery(this, message);
      },
      { noAck: false },
    );
    return consumerTag;
  }

  /** Acks or requeues one of this session's deliveries; false when the channel is gone. */
  settle(message: ConsumeMessage, verdict: 'ack' | 'requeue'): boolean {
    this.#unsettled = Math.max(0, this.#unsettled - 1);
    if (this.#unsettled === 0) for (const resolve of this.#drained.splice(0)) resolve();
    if (!this.#open) return false;
    try {
      if (verdict === 'ack') this.channel.ack(message);
      else this.channel.nack(message, false, true);
      return true;
    } catch {
      // amqplib refuses a send on a channel that closed an instant ago.
      return false;
    }
  }

  /** Stops new deliveries (basic.cancel); deliveries in hand can still be settled. */
  async stopConsuming(): Promise<void> {
    this.#stopped = true;
    // A resize waiting for deliveries to settle has cancelled its consumer already.
    for (const resolve of this.#drained.splice(0)) resolve();
    await this.#resizing;
    if (!this.#open || this.#consumerTag === null) return;
    try {
      await this.channel.cancel(this.#consumerTag);
    } catch {
      // The channel went meanwhile: nothing more is delivered on it either.
    }
  }

  /**
   * Closes the channel, then the connection; unsettled deliveries return to the queue. Never
   * rejects. The channel goes first because amqplib writes a connection's close straight to the
   * socket while channel frames wait in its multiplexer: closed at once, the connection's close
   * overtook the last acks, and the broker requeued messages that were stored (found by the
   * contract's close case). The channel's close-ok comes after the broker has read its acks.
   */
  async close(): Promise<void> {
    const wasOpen = this.#open;
    this.#open = false;
    for (const resolve of this.#drained.splice(0)) resolve();
    if (wasOpen) await settledWithin([this.channel.close()], CLOSE_GRACE_MS);
    await closeConnection(this.model);
  }

  async #queue(): Promise<void> {
    const { queue, declareQueue, source } = this.options;
    try {
      if (declareQueue) await this.channel.assertQueue(queue, { durable: true });
      else await this.channel.checkQueue(queue);
    } catch (error: unknown) {
      const code = (error as { code?: unknown }).code;
      if (!declareQueue && code === 404) {
        throw new QueueBoxError(
          'config_invalid',
          `sources.${source}: the queue '${queue}' does not exist. QueueBox does not declare source queues by default: declare the queue, or set sources.${source}.declareQueue: true and QueueBox declares it (durable).`,
          { cause: error },
        );
      }
      if (code === 403 || code === 404 || code === 405 || code === 406) {
        throw new QueueBoxError(
          'config_invalid',
          `sources.${source}: the broker refused queue '${queue}': ${errorText(error)}`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  #lost(fallback: string): void {
    if (!this.#open) return;
    this.#open = false;
    for (const resolve of this.#drained.splice(0)) resolve();
    this.#reason ??= fallback;
    // The channel may have closed alone (the broker cancelled it); the connection goes with it.
    void closeConnection(this.model);
    if (this.#ready) this.options.onLost(this, this.#reason);
  }
}
