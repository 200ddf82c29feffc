/**
 * One destination's open link to the broker: a connection, its confirm channel for publishes, and
 * a second plain channel for exchange declarations.
 *
 * Confirms are tracked one by one (amqplib keeps a callback per delivery tag), so any number of
 * publishes may wait at once and a nack or a return fails only its own message. A basic.return
 * arrives before the confirm of the same message (RabbitMQ sends it first for a mandatory
 * publish that no queue takes); returns are matched to waiting publishes by message id, oldest
 * first, which is the broker's order.
 *
 * Declarations run on their own channel because a refused declaration (an exchange that exists
 * with another type, a reserved `amq.` name) closes the channel it ran on: on the confirm channel
 * it would fail every publish in flight to the destination, here it fails one row and the
 * declaration channel is opened again for the next.
 *
 * When the connection or the confirm channel closes, every unconfirmed publish fails (amqplib
 * calls each callback with "channel closed") and the link is discarded; the destination opens a
 * new one for its next publish. Its exchange declarations are forgotten with it, so an exchange
 * deleted behind QueueBox's back is declared again.
 */
import type { Channel, ChannelModel, ConfirmChannel, Message, Options } from 'amqplib';
import { closeConnection, errorText, openConnection } from '../connection.js';

export type ConfirmResult =
  | { readonly kind: 'acked' }
  | { readonly kind: 'nacked' }
  /** The broker returned it: no queue is bound for its routing key. */
  | { readonly kind: 'returned'; readonly exchange: string; readonly routingKey: string }
  /** The channel closed before the confirm came; `reason` says why when the broker or socket did. */
  | { readonly kind: 'closed'; readonly reason: string };

/** What takes a publish's answer; only its first `settle` counts. */
export interface ConfirmSink {
  settle(result: ConfirmResult): void;
}

interface Waiting {
  returned: { readonly exchange: string; readonly routingKey: string } | null;
  readonly sink: ConfirmSink;
}

const ACKED: ConfirmResult = { kind: 'acked' };
const NACKED: ConfirmResult = { kind: 'nacked' };

export class PublishChannel {
  readonly #model: ChannelModel;
  readonly #confirm: ConfirmChannel;
  #declare: Promise<Channel> | null = null;
  readonly #declared = new Map<string, Promise<void>>();
  /** The names whose declaration the broker confirmed on this link. */
  readonly #declaredDone = new Set<string>();
  /** Publishes awaiting their confirm, by message id, oldest first. */
  readonly #waiting = new Map<string, Waiting[]>();
  #closedReason: string | null = null;
  #open = true;
  #closing: Promise<void> | null = null;

  private constructor(
    model: ChannelModel,
    confirm: ConfirmChannel,
    private readonly onClosed: (channel: PublishChannel) => void,
  ) {
    this.#model = model;
    this.#confirm = confirm;
    model.on('error', (error: unknown) => this.#noteReason(errorText(error)));
    model.on('close', () => this.#closed('the connection to the broker closed'));
    confirm.on('error', (error: unknown) => this.#noteReason(errorText(error)));
    confirm.on('close', () => this.#closed('the channel closed'));
    confirm.on('return', (returned: Message) => this.#returned(returned));
  }

  /** Connects and opens the confirm channel; the caller bounds nothing, the connect is bounded. */
  static async open(
    url: string,
    connectionName: string,
    onClosed: (channel: PublishChannel) => void,
  ): Promise<PublishChannel> {
    const model = await openConnection(url, { connectionName });
    // Listeners before the first await: an error in between must not crash the process.
    let early: string | null = null;
    const onEarlyError = (error: unknown) => (early ??= errorText(error));
    model.on('error', onEarlyError);
    try {
      const confirm = await model.createConfirmChannel();
      model.off('error', onEarlyError);
      const channel = new PublishChannel(model, confirm, onClosed);
      if (early !== null) channel.#noteReason(early);
      return channel;
    } catch (error: unknown) {
      await closeConnection(model);
      throw new Error(`Opening a confirm channel failed: ${early ?? errorText(error)}`, {
        cause: error,
      });
    }
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Whether `name` was declared on this link already: a publish may then skip the wait. */
  isDeclared(name: string): boolean {
    return this.#declaredDone.has(name);
  }

  /** Declares the exchange (durable, `type`) once per name on this link. */
  declareExchange(name: string, type: string): Promise<void> {
    let declared = this.#declared.get(name);
    if (declared === undefined) {
      declared = this.#declareOnce(name, type);
      this.#declared.set(name, declared);
      declared.then(
        () => {
          if (this.#declared.get(name) === declared) this.#declaredDone.add(name);
        },
        () => undefined,
      );
      // A refused or interrupted declaration is tried again by the next row that needs it.
      declared.catch(() => {
        if (this.#declared.get(name) === declared) this.#declared.delete(name);
      });
    }
    return declared;
  }

  /**
   * Publishes and settles `sink` with the broker's answer (no promise per publish: the caller's
   * wait is the sink). Never throws: a publish amqplib refuses (it should not happen, see
   * wire-message.ts) discards the link, since amqplib has then queued a confirm callback for a
   * delivery the broker never saw.
   */
  publish(
    exchange: string,
    routingKey: string,
    body: Buffer,
    options: Options.Publish & { readonly messageId: string },
    sink: ConfirmSink,
  ): void {
    if (!this.#open) {
      sink.settle(this.#closedResult());
      return;
    }
    const { messageId } = options;
    const waiting: Waiting = { returned: null, sink };
    let queue = this.#waiting.get(messageId);
    if (queue === undefined) this.#waiting.set(messageId, (queue = []));
    queue.push(waiting);
    try {
      this.#confirm.publish(exchange, routingKey, body, options, (error: unknown) => {
        this.#forget(messageId, waiting);
        if (error === null || error === undefined) {
          sink.settle(
            waiting.returned === null ? ACKED : { kind: 'returned', ...waiting.returned },
          );
        } else if (!this.#open || isChannelClosed(error)) {
          // amqplib fails every callback before the channel's own close listener runs; the
          // reason (a socket error, the broker's close frame) was noted before that.
          sink.settle(this.#closedResult());
        } else {
          sink.settle(NACKED);
        }
      });
    } catch (error: unknown) {
      this.#forget(messageId, waiting);
      this.#noteReason(`the publish could not be encoded: ${errorText(error)}`);
      sink.settle(this.#closedResult());
      void this.close();
    }
  }

  /** Closes within CLOSE_GRACE_MS; unconfirmed publishes fail as "closed". Never rejects. */
  async close(): Promise<void> {
    this.#closed('the publisher closed');
    await this.#closing;
  }

  async #declareOnce(name: string, type: string): Promise<void> {
    const channel = await this.#declareChannel();
    try {
      await channel.assertExchange(name, type, { durable: true });
    } catch (error: unknown) {
      throw new Error(
        `Declaring exchange '${name}' of type '${type}' failed: ${errorText(error)}`,
        { cause: error },
      );
    }
  }

  #declareChannel(): Promise<Channel> {
    if (this.#declare === null) {
      const opening = this.#model.createChannel().then((channel) => {
        channel.on('error', () => undefined);
        // A refused declaration closes this channel only; the next declaration opens another.
        channel.on('close', () => {
          if (this.#declare === opening) this.#declare = null;
        });
        return channel;
      });
      opening.catch(() => {
        if (this.#declare === opening) this.#declare = null;
      });
      this.#declare = opening;
    }
    return this.#declare;
  }

  #returned(message: Message): void {
    const id: unknown = message.properties.messageId;
    if (typeof id !== 'string') return;
    const waiting = this.#waiting.get(id)?.find((entry) => entry.returned === null);
    if (waiting !== undefined) {
      waiting.returned = {
        exchange: message.fields.exchange,
        routingKey: message.fields.routingKey,
      };
    }
  }

  #forget(messageId: string, waiting: Waiting): void {
    const queue = this.#waiting.get(messageId);
    if (queue === undefined) return;
    const index = queue.indexOf(waiting);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.#waiting.delete(messageId);
  }

  #noteReason(reason: string): void {
    this.#closedReason ??= reason;
  }

  /** Once: marks the link closed, tells the destination, and closes the connection too. */
  #closed(fallback: string): void {
    if (!this.#open) return;
    this.#noteReason(fallback);
    this.#open = false;
    // A confirm channel the broker closed leaves its connection open; nothing else uses it.
    this.#closing = closeConnection(this.#model);
    // amqplib fails the unconfirmed callbacks only once the socket has closed; a close that
    // must destroy a silent broker's socket would leave them waiting, so they fail here.
    const result = this.#closedResult();
    for (const queue of this.#waiting.values())
      for (const waiting of queue) waiting.sink.settle(result);
    this.#waiting.clear();
    this.onClosed(this);
  }

  #closedResult(): ConfirmResult {
    return { kind: 'closed', reason: this.#closedReason ?? 'the channel closed' };
  }
}

function isChannelClosed(error: unknown): boolean {
  return error instanceof Error && error.message === 'channel closed';
}
