/**
 * What every broker source does the same way (spec §7.6-§7.8), once:
 *
 * - start: connect and consume; a refusal waiting cannot change (a missing queue or stream)
 *   stops the start, anything else (a broker not reachable yet) is retried in the background,
 *   so QueueBox starts and consumes once it can;
 * - each delivery goes to the inbox side (core's DeliveryHandler), whose verdict the adapter maps
 *   onto its settle calls; a handler that throws anyway is a `retry`; the wait before a retried
 *   delivery comes back doubles per round of failures (DoublingBackoff), so a store outage is
 *   no hot loop of redeliveries;
 * - a session lost for good is replaced after a wait that doubles from 250 ms to 5 s
 *   (ReconnectSchedule), one attempt at a time, never after close;
 * - readiness is "a session consumes" (and whatever more the adapter asks of it);
 * - close: no new deliveries, those in hand settle for at most 30 s, then the session closes.
 *
 * The adapter supplies only its client calls (open a consuming session, stop consuming, release
 * what it holds) and its settle mapping (ack, requeue, nak, offsets).
 */
import { settledWithin, sleep } from '../abortable-sleep.js';
import { DoublingBackoff } from '../doubling-backoff.js';
import { QueueBoxError, toError } from '../errors.js';
import type { Logger } from '../ports/logger.js';
import type {
  DeliveryHandler,
  DeliveryVerdict,
  SourceConsumer,
  SourceConsumerDeps,
  SourceDelivery,
} from '../ports/source-consumer.js';
import { ReconnectSchedule } from '../reconnect-schedule.js';
import { sanitize } from '../sanitizer.js';

/** Spec §7.6-§7.8: how long `close()` lets deliveries in hand settle. */
export const SOURCE_SETTLE_TIMEOUT_MS = 30_000;
export const SOURCE_RECONNECT_INITIAL_MS = 250;
export const SOURCE_RECONNECT_MAX_MS = 5_000;

/** How log lines name the broker and its parts. */
export interface BrokerSourceTexts {
  /** The broker's display name; the readiness component is `<broker in lower case>.<source>`. */
  readonly broker: string;
  /** What a lost session is, after the broker's name (`channel` gives `<broker> channel`). */
  readonly session: string;
  /** What a delivery is called (`message`, `record`). */
  readonly unit: string;
  /** How the broker delivers an unsettled one again, after `delivers it again`: ` after ackWaitMs`. */
  readonly again: string;
}

export interface BrokerSourceSettings {
  readonly texts: BrokerSourceTexts;
  /** The broker's error as one sanitized line. */
  readonly errorText: (error: unknown) => string;
  /** Deliveries that fail together in an outage (the prefetch or batch size): one backoff round. */
  readonly retryRound: number;
}

/** Test seams. */
export interface BrokerSourceOptions {
  readonly settleTimeoutMs?: number;
  readonly retryBackoff?: DoublingBackoff;
}

/** What a broker source's constructor takes after its name and configuration. */
export type BrokerSourceArgs = [deps: SourceConsumerDeps, options?: BrokerSourceOptions];

export abstract class BrokerSource<Session> implements SourceConsumer {
  readonly source: string;
  readonly healthComponent: string;
  protected readonly handler: DeliveryHandler;
  protected readonly logger: Logger;
  /** The wait before a retried delivery comes back; reset by any durably handled one. */
  protected readonly retryBackoff: DoublingBackoff;
  readonly #settings: BrokerSourceSettings;
  readonly #settleTimeoutMs: number;
  /** Aborted by close(): ends backoff waits, the reconnect loop and the adapter's own loops. */
  readonly #stop = new AbortController();
  readonly #inHand = new Set<Promise<void>>();
  readonly #reconnect = new ReconnectSchedule(
    this.#stop.signal,
    SOURCE_RECONNECT_INITIAL_MS,
    SOURCE_RECONNECT_MAX_MS,
  );
  #session: Session | null = null;
  #connecting: Promise<void> | null = null;
  #closing: Promise<void> | null = null;

  protected constructor(
    name: string,
    settings: BrokerSourceSettings,
    deps: SourceConsumerDeps,
    options: BrokerSourceOptions = {},
  ) {
    this.source = name;
    this.healthComponent = `${settings.texts.broker.toLowerCase()}.${name}`;
    this.handler = deps.handler;
    this.logger = deps.logger;
    this.retryBackoff = options.retryBackoff ?? new DoublingBackoff(settings.retryRound);
    this.#settleTimeoutMs = options.settleTimeoutMs ?? SOURCE_SETTLE_TIMEOUT_MS;
    this.#settings = settings;
  }

  /** Connects and starts consuming; rejects when the broker or the client refuses. */
  protected abstract open(): Promise<Session>;
  /** Stops new deliveries; those in hand can still be settled. */
  protected abstract stopConsuming(session: Session | null): Promise<void>;
  /** After the deliveries in hand settled (or their wait ended): closes what the adapter holds. */
  protected abstract release(session: Session | null): Promise<void>;
  /** `Source 'x' <consuming> again.`: `consumes queue 'q'`, `reads stream 's'`. */
  protected abstract consumingText(): string;

  /** Readiness beyond "a session consumes". */
  protected ready(_session: Session): boolean {
    return true;
  }

  /** A session is consuming: the adapter starts what runs on it (a fetch loop). */
  protected consuming(_session: Session): void {}

  /** Whether a failed start stops the start (waiting would not change it). */
  protected stopsStart(error: unknown): boolean {
    return error instanceof QueueBoxError;
  }

  protected startFailureText(error: unknown): string {
    return `Source '${this.source}' cannot reach ${this.#settings.texts.broker} yet, so it keeps trying in the background. Reason: ${this.#settings.errorText(error)}`;
  }

  protected reconnectFailureText(error: unknown, retryInMs: number): string {
    return `Source '${this.source}' could not reconnect to ${this.#settings.texts.broker}; it tries again in ${retryInMs} ms. Reason: ${this.#settings.errorText(error)}`;
  }

  /** Aborted once close() begins. */
  protected get stopSignal(): AbortSignal {
    return this.#stop.signal;
  }

  protected get session(): Session | null {
    return this.#session;
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return this.close();
    signal?.addEventListener('abort', () => void this.close(), { once: true });
    try {
      await this.#connect();
    } catch (error: unknown) {
      if (this.stopsStart(error)) {
        await this.close();
        throw error;
      }
      if (this.#stop.signal.aborted) return;
      this.logger.warn(this.startFailureText(error));
      this.#scheduleReconnect();
    }
  }

  isHealthy(): boolean {
    const session = this.#session;
    return !this.#stop.signal.aborted && session !== null && this.ready(session);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /**
   * The inbox side's verdict on one delivery, then `settle` with it; in hand (close waits for it)
   * until `settle` has run.
   */
  protected handle(
    delivery: SourceDelivery,
    settle: (verdict: DeliveryVerdict) => void | Promise<void>,
  ): Promise<void> {
    const task = this.#verdictOf(delivery).then(settle);
    this.#inHand.add(task);
    void task.finally(() => this.#inHand.delete(task));
    return task;
  }

  /** The wait a verdict asks for before its delivery comes back: 0 for an ack (which resets it). */
  protected retryDelay(verdict: DeliveryVerdict): number {
    if (verdict.settle === 'ack') {
      this.retryBackoff.reset();
      return 0;
    }
    return this.retryBackoff.next();
  }

  /** Waits `ms`, or less when close() begins. */
  protected pause(ms: number): Promise<void> {
    return sleep(ms, this.#stop.signal);
  }

  /**
   * `session` is gone (the broker closed it, the client gave up): it is replaced after a wait,
   * once `cleanup` (the adapter closing what is left of it) has ended. `reason` null: the adapter
   * has said why already.
   */
  protected lost(session: Session, reason: string | null, cleanup?: Promise<unknown>): void {
    if (this.#session !== session) return;
    this.#session = null;
    if (this.#stop.signal.aborted) return;
    if (reason !== null) {
      this.logger.warn(
        `Source '${this.source}' lost its ${this.#settings.texts.broker} ${this.#settings.texts.session} and reconnects. Reason: ${reason}`,
      );
    }
    if (cleanup === undefined) this.#scheduleReconnect();
    else void cleanup.finally(() => this.#scheduleReconnect());
  }

  /** A settle that could not go out: the broker delivers the message again. */
  protected settleDropped(settle: 'ack' | 'requeue' | 'nak', because: string): void {
    const { unit, broker, again } = this.#settings.texts;
    const redelivered = `${broker} delivers it again${again}`;
    if (settle === 'ack') {
      this.logger.warn(
        `The acknowledgement of a ${unit} of source '${this.source}' was dropped because ${because}; ${redelivered} and the inbox deduplicates it.`,
      );
    } else {
      this.logger.debug(
        `The ${settle} of a ${unit} of source '${this.source}' was dropped because ${because}; ${redelivered}.`,
      );
    }
  }

  async #verdictOf(delivery: SourceDelivery): Promise<DeliveryVerdict> {
    try {
      return await this.handler.handle(delivery);
    } catch (error: unknown) {
      // The port promises a verdict; a handler that throws anyway sends the message back.
      return { settle: 'retry', reason: sanitize(toError(error).message) };
    }
  }

  #connect(): Promise<void> {
    const connecting = this.open().then(async (session) => {
      if (this.#stop.signal.aborted) {
        await this.release(session);
        throw new Error('the source is closed');
      }
      this.#session = session;
      this.#reconnect.connected();
      this.consuming(session);
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
          this.logger.info(`Source '${this.source}' ${this.consumingText()} again.`);
      },
      (error: unknown) => {
        if (this.#stop.signal.aborted) return;
        this.logger.warn(this.reconnectFailureText(error, this.#reconnect.nextDelayMs));
        this.#scheduleReconnect();
      },
    );
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort();
    this.#reconnect.cancel();
    // A connect in progress finishes (or fails) before there is a session to close.
    await this.#connecting?.catch(() => undefined);
    const session = this.#session;
    await this.stopConsuming(session);
    // Backoff waits ended with the abort: their settles go out now, with the rest.
    const settled = await settledWithin([...this.#inHand], this.#settleTimeoutMs);
    if (!settled) {
      const { unit, broker, again } = this.#settings.texts;
      this.logger.warn(
        `Source '${this.source}' stopped with ${this.#inHand.size} ${unit}(s) still being handled; ${broker} delivers them again${again}.`,
      );
    }
    this.#session = null;
    await this.release(session);
  }
}
