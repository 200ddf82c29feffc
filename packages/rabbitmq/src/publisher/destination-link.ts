/**
 * One RabbitMQ destination (spec §6.2): its connection and confirm channel, opened lazily by the
 * first publish and again by the first publish after a loss, one open at a time however many
 * publishes wait for it.
 *
 * The reference published one message at a time per destination behind a mutex; here every
 * publish the poller runs (up to `outbox.concurrency`) is in flight at once and each waits for
 * its own confirm, up to CONFIRM_TIMEOUT_MS. Key order still holds, since the outbox claim hands
 * out one row per key at a time (docs/decisions.md).
 */
import {
  bounded,
  payloadBuffer,
  publishFailed,
  sanitize,
  type Bounded,
  type HeaderMap,
  type Logger,
  type PublishOutcome,
  type PublishRequest,
  type RabbitDestinationConfig,
} from '@queuebox/core';
import type { Options } from 'amqplib';
import { rabbitError } from '../classify-error.js';
import { errorText } from '../connection.js';
import { ConfirmWaits, type ConfirmEnd } from './confirm-waits.js';
import { PublishChannel } from './publish-channel.js';
import {
  fitsShortString,
  staticHeaderMap,
  wireProperties,
  type DeliveryModeNumber,
} from './wire-message.js';

/** Spec §6.2: a publish the broker has not confirmed after this long fails. */
export const CONFIRM_TIMEOUT_MS = 5_000;

export interface DestinationLinkOptions {
  readonly name: string;
  readonly config: RabbitDestinationConfig;
  readonly logger: Logger;
  /** Test seam: the confirm wait. */
  readonly confirmTimeoutMs?: number;
}

export class DestinationLink {
  readonly #name: string;
  readonly #url: string;
  readonly #exchangeType: string;
  readonly #deliveryMode: DeliveryModeNumber;
  readonly #staticHeaders: HeaderMap;
  readonly #logger: Logger;
  readonly #confirmTimeoutMs: number;
  #channel: Promise<PublishChannel> | null = null;
  /** The open channel once it resolved; cleared with `#channel` when the link is lost. */
  #ready: PublishChannel | null = null;
  #closed = false;
  readonly #confirms: ConfirmWaits;

  constructor(options: DestinationLinkOptions) {
    const { config } = options;
    this.#name = options.name;
    this.#url = config.url;
    this.#exchangeType = config.exchangeType;
    this.#deliveryMode = config.deliveryMode === 'transient' ? 1 : 2;
    this.#staticHeaders = staticHeaderMap(config.headers);
    this.#logger = options.logger;
    this.#confirmTimeoutMs = options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
    this.#confirms = new ConfirmWaits(this.#confirmTimeoutMs);
  }

  async publish(request: PublishRequest): Promise<PublishOutcome> {
    const { message } = request;
    const exchange = request.address ?? '';
    const routingKey = request.routingKey ?? '';
    // The router fails a blank address before the publisher; this guards a direct caller.
    if (exchange.trim() === '') {
      return refused(`The destination '${this.#name}' resolved no exchange for this message`);
    }
    if (!fitsShortString(exchange)) return refused(tooLong('exchange name', exchange));
    if (!fitsShortString(routingKey)) return refused(tooLong('routing key', routingKey));
    const wire = wireProperties(
      message,
      this.#staticHeaders,
      this.#deliveryMode,
      request.traceHeaders,
    );
    if (!wire.ok) return refused(wire.error);
    if (wire.unsent !== null) this.#warnUnsent(message.id, wire.unsent);
    if (this.#closed) return failure('Publish failed: the publisher is closed');

    // The common case: the link is open and the exchange declared, so nothing is awaited
    // before the publish (one timer and a few promise turns fewer per message).
    const ready = this.#ready;
    if (ready !== null && ready.isOpen && ready.isDeclared(exchange)) {
      return this.#publishOn(ready, request, exchange, routingKey, wire.options);
    }
    // Connecting and declaring are bounded like the confirm: a broker that stopped answering
    // must not hold a publish (and its poller slot) for ever.
    const prepared = await this.#within(
      this.#openChannel().then(async (channel) => {
        await channel.declareExchange(exchange, this.#exchangeType);
        return channel;
      }),
      request.signal,
    );
    if (prepared.kind === 'failed') return thrown(prepared.error);
    if (prepared.kind === 'timeout') {
      return failure(
        `Publish failed: the broker did not answer within ${this.#confirmTimeoutMs} ms (connecting or declaring exchange '${exchange}')`,
      );
    }
    if (prepared.kind !== 'done') return outcomeOf(prepared, message.id);
    return this.#publishOn(prepared.value, request, exchange, routingKey, wire.options);
  }

  async #publishOn(
    channel: PublishChannel,
    request: PublishRequest,
    exchange: string,
    routingKey: string,
    options: Options.Publish & { readonly messageId: string },
  ): Promise<PublishOutcome> {
    const { message } = request;
    // The claim ended before the publish: nothing was sent, and nothing is to be.
    const wait = this.#confirms.start(request);
    if (wait === null) return outcomeOf(ABORTED, message.id);
    channel.publish(exchange, routingKey, payloadBuffer(request.payload), options, wait);
    return outcomeOf(await wait.done, message.id);
  }

  /** Closes the connection; unconfirmed publishes fail. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#channel;
    this.#channel = null;
    this.#ready = null;
    if (opening === null) return;
    try {
      await (await opening).close();
    } catch {
      // It never opened: nothing to close.
    }
  }

  async #openChannel(): Promise<PublishChannel> {
    for (;;) {
      let opening = this.#channel;
      if (opening === null) {
        const created = PublishChannel.open(this.#url, `queuebox destination ${this.#name}`, () => {
          if (this.#channel === created) this.#channel = null;
        });
        created.catch(() => {
          if (this.#channel === created) this.#channel = null;
        });
        this.#channel = opening = created;
      }
      const channel = await opening;
      if (this.#channel === opening) this.#ready = channel;
      if (this.#closed) {
        await channel.close();
        throw new Error('the publisher is closed');
      }
      // Lost between its open and this publish: the close listener cleared it, open another.
      if (channel.isOpen) return channel;
      if (this.#channel === opening) this.#channel = null;
    }
  }

  /** `work`'s result, or the timeout (CONFIRM_TIMEOUT_MS) or the caller's abort, whichever is first. */
  #within<T>(work: Promise<T>, signal: AbortSignal): Promise<Bounded<T>> {
    return bounded(work, this.#confirmTimeoutMs, signal).result;
  }

  #warnUnsent(messageId: string, names: readonly string[]): void {
    const quoted = names.map((name) => sanitize(JSON.stringify(name.slice(0, 100)))).join(', ');
    this.#logger.warn(
      `Message ${messageId} has header name(s) ${quoted} longer than the 255 bytes an AMQP header name can take, so QueueBox sent it without them.`,
      { messageId, destination: this.#name },
    );
  }
}

function outcomeOf(
  result: ConfirmEnd | Exclude<Bounded<unknown>, { kind: 'done' | 'failed' }>,
  messageId: string,
): PublishOutcome {
  switch (result.kind) {
    case 'acked':
      return SUCCESS;
    case 'returned':
      return failure(
        `Message ${messageId} is unroutable on exchange ${result.exchange} with routing key ${result.routingKey}`,
      );
    case 'nacked':
      return failure(`Publish not confirmed: the broker nacked message ${messageId}`);
    case 'timeout':
      return failure('Publish not confirmed');
    case 'aborted':
      return failure('Publish abandoned: the claim on the message ended');
    case 'cancelled':
    case 'closed':
      return failure(`Publish failed: ${result.reason}, so message ${messageId} was not confirmed`);
  }
}

function tooLong(what: string, value: string): string {
  return `Publish failed: the ${what} '${sanitize(value.slice(0, 60))}...' is longer than the 255 bytes AMQP allows`;
}

const SUCCESS: PublishOutcome = { ok: true };
const ABORTED = { kind: 'aborted' } as const;

function failure(text: string): PublishOutcome {
  // Every failure takes the retry path of spec §4.5, decided by the poller from the row.
  return { ok: false, error: publishFailed(text) };
}

/** The message itself cannot be sent as it is (a name or header table AMQP cannot carry). */
function refused(text: string): PublishOutcome {
  return { ok: false, error: publishFailed(text, false) };
}

/** What amqplib threw, with its class from the classifier. */
function thrown(error: unknown): PublishOutcome {
  return { ok: false, error: rabbitError(error, `Publish failed: ${errorText(error)}`) };
}
