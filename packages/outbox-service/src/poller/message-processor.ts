import {
  correlationIdOf,
  errorClassOf,
  QueueBoxError,
  retryDelayMs,
  sanitize,
  sanitizeError,
  sleep,
  type CancelListener,
  type ClaimedOutboxMessage,
  type HeaderEntry,
  type Counter,
  type Fence,
  type GaugeSeries,
  type JsonPayload,
  type LogFields,
  type Logger,
  type OutboxCompletion,
  type OutboxMetrics,
  type PublishOutcome,
  type PublishRequest,
  type Publisher,
  type TraceSpan,
  type Tracing,
  type Timer,
} from '@queuebox/core';
import type { DestinationGates, GateOutcome } from '../gate/destination-gates.js';
import type { PublisherRegistry } from '../publish/publisher-registry.js';
import type { MessageRouter, RoutingResult } from '../routing/message-router.js';
import type { TransformPipeline } from '../transform/transform-pipeline.js';
import type { Claim } from './claim.js';
import { deadReasons, failureReasons, logTexts } from './log-texts.js';
import { ShutdownAbandonedError } from './poller-errors.js';
import { publishSpan, traceOutcome, type TraceOutcome } from './publish-span.js';

export type ProcessorMetrics = Pick<
  OutboxMetrics,
  | 'messages'
  | 'claimsLost'
  | 'processErrors'
  | 'processingDuration'
  | 'publishDuration'
  | 'destinationMessages'
  | 'queueDepth'
>;

export interface MessageProcessorDeps {
  readonly router: MessageRouter;
  readonly pipeline: TransformPipeline;
  readonly publishers: PublisherRegistry;
  /** The group-commit writer: resolves whether the fence held; `keyed`: the row has a key. */
  readonly complete: (completion: OutboxCompletion, keyed: boolean) => Promise<boolean>;
  readonly metrics: ProcessorMetrics;
  readonly logger: Logger;
  readonly retryBaseDelayMs: number;
  /**
   * How long a `sent` write that throws (the database restarting, a cut connection) is tried
   * again before the failure path of spec §4.3 step 7 takes over; the poller passes
   * `claimTimeoutMs`, the time after which the fence fails anyway.
   */
  readonly sentWriteRetryMs: number;
  /** Jitter source of the retry delay; tests pin it. */
  readonly random?: () => number;
  /**
   * The destinations' gates and how a row a gate turns away goes back to pending (fenced, attempt
   * and scheduled_at unchanged). Absent: every publish goes, as the reference's.
   */
  readonly gating?: {
    readonly gates: DestinationGates;
    readonly handBack: (fence: Fence) => Promise<void>;
  };
  /** Present only while tracing is on: then each row gets a `publish <destination>` span. */
  readonly tracing?: Tracing;
}

/** Signals that the task stopped because its claim is gone or the poller abandoned it. */
class Aborted extends Error {}

/** One message in progress: what every step needs. */
interface Task {
  readonly message: ClaimedOutboxMessage;
  readonly fence: Fence;
  readonly claim: Claim;
  /** The log context of spec §4.3 step 1 (+ destination once routed). */
  readonly fields: LogFields;
  /** Built on the first line logged: most messages log nothing, and a child logger is not free. */
  logger: Logger | null;
  /** Called once, right before the terminal write: the publish slot is free from here on. */
  readonly settling: () => void;
  /** The publish span while tracing is on, else null. */
  span: TraceSpan | null;
}

/**
 * Runs one claimed row through spec §4.3: route, publisher, transforms, publish, and one fenced
 * terminal write (sent, retry or dead), each under the row's claim fence. `process` never rejects:
 * every outcome ends in a write, a log line, or (when the claim is gone or the poller gave up)
 * nothing at all, leaving the row to its lease.
 */
export class MessageProcessor {
  private readonly publisherByDestination = new Map<string, Publisher | null>();
  private readonly seriesByDestination = new Map<string, DestinationSeries>();
  /** The per-message series, resolved once rather than found by their labels per message. */
  private readonly counted: {
    readonly sent: Counter;
    readonly failed: Counter;
    readonly dead: Counter;
    readonly claimsLost: Counter;
  };

  constructor(private readonly deps: MessageProcessorDeps) {
    const { messages, claimsLost } = deps.metrics;
    this.counted = {
      sent: messages.child({ status: 'sent' }),
      failed: messages.child({ status: 'failed' }),
      dead: messages.child({ status: 'dead' }),
      claimsLost: claimsLost.child({ component: 'outbox' }),
    };
  }

  /**
   * `settling` runs once, just before the terminal write is submitted (or when the task ends
   * without one): the poller frees the publish slot there, so the group-commit wait of one
   * message never holds back the next publish.
   */
  async process(
    message: ClaimedOutboxMessage,
    claim: Claim,
    settling: () => void = noop,
  ): Promise<void> {
    let settled = false;
    const task: Task = {
      message,
      fence: { id: message.id, claimToken: message.claimToken },
      claim,
      fields: {
        messageId: message.id,
        topic: message.topic,
        attempt: message.attempt,
        correlationId: correlationIdOf(message.headers),
      },
      logger: null,
      span: null,
      settling: () => {
        if (settled) return;
        settled = true;
        settling();
      },
    };
    const stopTimer = this.deps.metrics.processingDuration.startTimer();
    try {
      // A buffered row whose lease was lost before it started is not worth routing.
      if (claim.aborted) throw new Aborted();
      const routing = this.deps.router.route(message);
      const { tracing } = this.deps;
      if (tracing !== undefined) task.span = publishSpan(tracing, message, routing);
      if (routing) {
        task.fields.destination = routing.destination;
        task.logger = null;
        await this.deliver(task, routing);
      } else {
        await this.dead(task, deadReasons.noRoute(message.topic));
      }
      stopTimer();
    } catch (error: unknown) {
      if (error instanceof Aborted || claim.aborted) {
        this.aborted(task);
        return;
      }
      task.span?.fail(sanitizeError(error));
      stopTimer();
      this.deps.metrics.processErrors.inc();
      const reason = sanitizeError(error);
      this.log(task).error(logTexts.processingFailed(message.id, reason));
      try {
        await this.fail(task, reason);
      } catch (writeError: unknown) {
        // The row stays `processing`; the reclaim step returns it once its lease runs out.
        this.log(task).error(logTexts.processingFailed(message.id, sanitizeError(writeError)));
      }
    } finally {
      task.settling();
      task.span?.end();
    }
  }

  private async deliver(task: Task, routing: RoutingResult): Promise<void> {
    const { message, claim } = task;
    const { destination } = routing;
    const publisher = this.publisherFor(routing);
    if (!publisher) {
      await this.dead(task, deadReasons.noPublisher(destination));
      return;
    }

    let payload: JsonPayload = message.payload;
    if (routing.routeTransform !== null || routing.destinationTransform !== null) {
      const result = await this.deps.pipeline.run(message, routing);
      if (result.kind === 'dead') {
        await this.dead(task, deadReasons.transformDead);
        return;
      }
      if (result.kind === 'error') {
        await this.fail(task, sanitize(failureReasons.transform(result.reason)));
        return;
      }
      payload = result.payload;
    }

    const blank = routing.address !== null && routing.address.trim() === '';
    if (routing.addressProblem !== null || blank) {
      this.seriesFor(routing).failure.inc();
      // The router says why (which template or column); the generic text covers a router that
      // handed over a blank address without saying so.
      const reason = routing.addressProblem ?? failureReasons.blankAddress(destination);
      await this.fail(task, sanitize(reason));
      return;
    }

    if (claim.aborted) throw new Aborted();
    const gating = this.deps.gating;
    const gated = gating !== undefined && gating.gates.has(destination);
    if (gated && !gating.gates.admit(destination)) {
      // No capacity now (an open circuit, no token): no attempt is made or counted.
      task.settling();
      if (task.span !== null) traceOutcome(task.span, 'deferred');
      await gating.handBack(task.fence);
      return;
    }
    const outcome = await this.publish(publisher, routing, message, payload, claim, task.span);
    const uncounted = gated && gating.gates.settled(destination, gateOutcome(outcome, claim));
    if (outcome.ok) {
      await this.sent(task, routing);
      return;
    }
    // A publish we cancelled because the claim is gone is not the destination's failure.
    if (claim.aborted) throw new Aborted();
    this.seriesFor(routing).failure.inc();
    if (uncounted) {
      // A failed probe of a destination that is down: the row waits like the rows behind it.
      task.settling();
      if (task.span !== null) traceOutcome(task.span, 'deferred');
      await gating.handBack(task.fence);
      return;
    }
    await this.fail(task, sanitize(outcome.error.message));
  }

  private async publish(
    publisher: Publisher,
    routing: RoutingResult,
    message: ClaimedOutboxMessage,
    payload: JsonPayload,
    claim: Claim,
    span: TraceSpan | null,
  ): Promise<PublishOutcome> {
    const series = this.seriesFor(routing);
    series.queueDepth.inc();
    const stop = series.publishDuration.startTimer();
    try {
      return await publisher.publish(
        new ClaimedPublishRequest(
          message,
          routing,
          payload,
          claim,
          span === null ? undefined : span.contextHeaders(),
        ),
      );
    } catch (error: unknown) {
      // Publishers may throw instead of returning a failure; both take the failure path.
      return { ok: false, error: thrownFailure(error) };
    } finally {
      stop();
      series.queueDepth.dec();
    }
  }

  private async sent(task: Task, routing: RoutingResult): Promise<void> {
    task.settling();
    const held = await this.writeSent(task);
    this.traced(task, 'sent', held);
    if (held) {
      this.counted.sent.inc();
      this.seriesFor(routing).success.inc();
    } else {
      this.log(task).error(logTexts.publishedButLost(task.message.id));
      this.counted.claimsLost.inc();
    }
  }

  /**
   * The fenced `sent` write, tried again while it throws, for up to `sentWriteRetryMs`. The
   * message is already at the destination: giving up at once (spec §4.3 step 7 runs the failure
   * path, whose write fails the same way while the database is away) leaves the row
   * `processing` until the reclaim step, and the destination then receives it a second time.
   * The soak test (bench/src/soak) found every database restart duplicating the messages
   * whose publish was answered during it. The fence still decides: a write that comes back
   * after the lease ran out changes nothing and reports the lost claim.
   */
  private async writeSent(task: Task): Promise<boolean> {
    const keyed = task.message.key !== null;
    const giveUpAt = performance.now() + this.deps.sentWriteRetryMs;
    for (let delayMs = SENT_WRITE_FIRST_DELAY_MS; ; delayMs *= 2) {
      try {
        return await this.deps.complete({ kind: 'sent', fence: task.fence }, keyed);
      } catch (error: unknown) {
        const wait = Math.min(delayMs, SENT_WRITE_MAX_DELAY_MS);
        if (task.claim.aborted || performance.now() + wait >= giveUpAt) throw error;
        this.log(task).warn(logTexts.sentWriteRetried(task.message.id, wait, sanitizeError(error)));
        await sleep(wait, task.claim.signal);
        if (task.claim.aborted) throw error;
      }
    }
  }

  /** Spec §4.5: retry while the row's own attempt is below its own max_attempts, else dead. */
  private async fail(task: Task, reason: string): Promise<void> {
    const { id, attempt, maxAttempts } = task.message;
    task.settling();
    if (attempt < maxAttempts) {
      const delayMs = retryDelayMs(attempt, this.deps.retryBaseDelayMs, this.deps.random);
      this.log(task).warn(logTexts.retryScheduled(id, attempt, delayMs, reason));
      const retry = { kind: 'retry', fence: task.fence, delayMs, error: reason } as const;
      await this.writeFailed(task, retry, this.counted.failed, 'schedule a retry');
      return;
    }
    this.log(task).error(logTexts.attemptsExhausted(id, attempt, reason));
    await this.writeDead(task, reason);
  }

  /** Dead without a delivery attempt: no route, no publisher, transform `Dead`. */
  private async dead(task: Task, reason: string): Promise<void> {
    task.settling();
    this.log(task).error(logTexts.deadLettered(task.message.id, reason));
    await this.writeDead(task, reason);
  }

  private async writeDead(task: Task, reason: string): Promise<void> {
    const dead = { kind: 'dead', fence: task.fence, error: reason } as const;
    await this.writeFailed(task, dead, this.counted.dead, 'mark it dead');
  }

  /** Writes a retry or a dead row and counts it; a claim lost meanwhile is logged instead. */
  private async writeFailed(
    task: Task,
    completion: Extract<OutboxCompletion, { kind: 'retry' | 'dead' }>,
    counter: Counter,
    lostAction: string,
  ): Promise<void> {
    task.span?.fail(completion.error);
    const held = await this.deps.complete(completion, task.message.key !== null);
    this.traced(task, completion.kind, held);
    if (held) {
      counter.inc();
    } else {
      this.lost(task, lostAction);
    }
  }

  /** The completion as a span event: a span per write would double the spans per message. */
  private traced(task: Task, outcome: TraceOutcome, held: boolean): void {
    if (task.span !== null) traceOutcome(task.span, held ? outcome : 'lost');
  }

  private aborted(task: Task): void {
    if (task.span !== null) traceOutcome(task.span, 'lost');
    // An abandoned message is already counted in the shutdown warning.
    if (task.claim.reason instanceof ShutdownAbandonedError) return;
    this.lost(task, 'finish delivering it');
  }

  private lost(task: Task, action: string): void {
    this.log(task).warn(logTexts.claimLost(task.message.id, action));
    this.counted.claimsLost.inc();
  }

  private log(task: Task): Logger {
    task.logger ??= this.deps.logger.child(task.fields);
    return task.logger;
  }

  /** The destination's series, resolved on its first message. */
  private seriesFor(routing: RoutingResult): DestinationSeries {
    const { destination } = routing;
    let series = this.seriesByDestination.get(destination);
    if (series === undefined) {
      const { metrics } = this.deps;
      series = {
        queueDepth: metrics.queueDepth.child({ destination }),
        publishDuration: metrics.publishDuration.child({
          destination_type: routing.destinationType,
        }),
        success: metrics.destinationMessages.child({ destination, outcome: 'success' }),
        failure: metrics.destinationMessages.child({ destination, outcome: 'failure' }),
      };
      this.seriesByDestination.set(destination, series);
    }
    return series;
  }

  /** Spec §4.3 step 3: the publisher of the destination's type; cached per destination name. */
  private publisherFor(routing: RoutingResult): Publisher | null {
    const { destination } = routing;
    let publisher = this.publisherByDestination.get(destination);
    if (publisher === undefined) {
      publisher = this.deps.publishers.publisherFor(routing.destinationType, destination);
      this.publisherByDestination.set(destination, publisher);
    }
    return publisher;
  }
}

/** One destination's per-message series (a destination has one type). */
interface DestinationSeries {
  readonly queueDepth: GaugeSeries;
  readonly publishDuration: Timer;
  readonly success: Counter;
  readonly failure: Counter;
}

/** A publish request whose signal is its claim's, made only when the publisher reads it. */
class ClaimedPublishRequest implements PublishRequest {
  readonly destination: string;
  readonly routingKey: string | null;
  readonly address: string | null;
  readonly #claim: Claim;

  constructor(
    readonly message: ClaimedOutboxMessage,
    routing: RoutingResult,
    readonly payload: JsonPayload,
    claim: Claim,
    readonly traceHeaders: readonly HeaderEntry[] | undefined,
  ) {
    this.destination = routing.destination;
    this.routingKey = routing.routingKey;
    this.address = routing.address;
    this.#claim = claim;
  }

  get signal(): AbortSignal {
    return this.#claim.signal;
  }

  watchCancel(listener: CancelListener): boolean {
    return this.#claim.watch(listener);
  }

  unwatchCancel(listener: CancelListener): void {
    this.#claim.unwatch(listener);
  }
}

function noop(): void {}

/**
 * What a publisher threw instead of returning a failure, under the sanitized text the row and the
 * logs show, classified as core reads anything thrown.
 */
function thrownFailure(error: unknown): QueueBoxError {
  return new QueueBoxError(
    error instanceof QueueBoxError ? error.code : 'publish_failed',
    sanitizeError(error),
    { cause: error, retryable: errorClassOf(error) === 'transient' },
  );
}

function gateOutcome(outcome: PublishOutcome, claim: Claim): GateOutcome {
  if (outcome.ok) return { kind: 'success' };
  if (claim.aborted) return { kind: 'cancelled' };
  return outcome.retryAfterMs === undefined
    ? { kind: 'failure' }
    : { kind: 'failure', retryAfterMs: outcome.retryAfterMs };
}

const SENT_WRITE_FIRST_DELAY_MS = 100;
const SENT_WRITE_MAX_DELAY_MS = 2000;
