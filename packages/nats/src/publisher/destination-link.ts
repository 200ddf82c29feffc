/**
 * One NATS destination (spec §6.4): its connection, opened by the first publish (one open at a
 * time however many publishes wait for it) and kept; the client re-establishes it after a loss.
 *
 * JetStream (`jetStream: true`): each publish waits for its own PubAck, up to `timeoutMs`, and
 * every publish the poller runs (up to `outbox.concurrency`) is in flight at once; the answers
 * come back on one reply subscription of the connection (pub-ack-requests.ts says why). The message
 * carries `Nats-Msg-Id` = the row id, so a retry of a publish whose PubAck was lost is one
 * message in the stream, not two (the stream answers "duplicate"). An admin replay of a `sent`
 * row inside the stream's duplicate window would be swallowed the same way, so a duplicate
 * answer on a first attempt (`attempt` 0: a new row or a replayed one) is published once more
 * under a message id of its own (`<row id>:<scheduled_at ms>`) and delivered again; a duplicate
 * on a later attempt is the lost PubAck's message and succeeds as it is (docs/decisions.md).
 *
 * Core NATS (`jetStream: false`): publish, then flush, bounded by `timeoutMs`; no proof of
 * delivery (spec), and no `Nats-Msg-Id` (no PubAck could report a replay as a duplicate).
 *
 * While the client is reconnecting a publish fails at once instead of waiting in the client's
 * buffer, and a loss fails every publish waiting for its PubAck (it can no longer come): each
 * takes the retry path, and the message id keeps a retry from doubling one that got through.
 */
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import {
  bounded,
  publishFailed,
  sanitize,
  type Bounded,
  type BoundedWait,
  type HeaderMap,
  type Logger,
  type NatsDestinationConfig,
  type OutboxMessage,
  type PublishOutcome,
  type PublishRequest,
} from '@queuebox/core';
import { natsError } from '../classify-error.js';
import { ConnectionState, closeConnection, errorText, openConnection } from '../connection.js';
import { PubAckRequests, type Abortable, type PubAckAnswer } from './pub-ack-requests.js';
import { NATS_MSG_ID, staticHeaderMap, wireHeaders, type WireHeader } from './wire-message.js';

export interface DestinationLinkOptions {
  readonly name: string;
  readonly config: NatsDestinationConfig;
  readonly logger: Logger;
}

interface Link {
  readonly connection: NatsConnection;
  readonly acks: PubAckRequests;
  readonly state: ConnectionState;
}

export class DestinationLink {
  readonly #name: string;
  readonly #config: NatsDestinationConfig;
  readonly #staticHeaders: HeaderMap;
  readonly #logger: Logger;
  #link: Promise<Link> | null = null;
  /** `#link` once it resolved: a publish on an open link needs no bounded wait for it. */
  #ready: Link | null = null;
  readonly #waits = new Set<BoundedWait<unknown>>();
  /** The last subject that passed `subjectProblem`. */
  #goodSubject: string | null = null;
  #closed = false;

  constructor(options: DestinationLinkOptions) {
    this.#name = options.name;
    this.#config = options.config;
    this.#staticHeaders = staticHeaderMap(options.config.headers);
    this.#logger = options.logger;
  }

  async publish(request: PublishRequest): Promise<PublishOutcome> {
    const { message } = request;
    const subject = request.address ?? '';
    if (subject !== this.#goodSubject) {
      const refused = subjectProblem(this.#name, subject);
      if (refused !== null) return failure(refused, false);
      // A static subject (or a template's usual result) is checked once, not per message.
      this.#goodSubject = subject;
    }
    const wire = wireHeaders(message, this.#staticHeaders, request.traceHeaders);
    if (wire.unsent !== null) this.#warnUnsent(message.id, wire.unsent);
    if (this.#closed) return failure('Publish failed: the publisher is closed');

    let link = this.#ready;
    if (link === null) {
      const opened = await this.#bounded(this.#open(), request.signal);
      if (opened.kind !== 'done')
        return outcomeOf(opened, message.id, this.#config.timeoutMs, 'connecting');
      link = opened.value;
    }
    if (!link.state.connected) {
      return failure(
        'Publish failed: the connection to NATS is lost and the client is reconnecting',
      );
    }
    // The bytes the store read, as they are (the client copies them into its buffer).
    const body = request.payload.body;
    const epoch = link.state.epoch;

    if (!this.#config.jetStream) {
      const flushed = this.#bounded(
        this.#publishFlushed(link, subject, body, wire.headers),
        request.signal,
        link,
        epoch,
      );
      return outcomeOf(await flushed, message.id, this.#config.timeoutMs, 'flush');
    }
    const first = await this.#request(
      link,
      epoch,
      subject,
      body,
      wire.headers,
      message.id,
      request,
    );
    if (first.kind !== 'ack' || !first.duplicate) {
      return ackOutcome(first, message.id, this.#config.timeoutMs);
    }
    // The stream already holds this message id. On a later attempt that is the message of a
    // publish whose PubAck was lost: delivered. On a first attempt it is a replay inside the
    // duplicate window, which must be delivered again.
    if (message.attempt > 0) return SUCCESS;
    const again = await this.#request(
      link,
      epoch,
      subject,
      body,
      wire.headers,
      replayMessageId(message),
      request,
    );
    return ackOutcome(again, message.id, this.#config.timeoutMs);
  }

  /** Closes the connection; publishes waiting for an answer fail. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wait of [...this.#waits]) wait.cancel('the publisher closed');
    this.#ready?.acks.cancelAll('the publisher closed');
    const opening = this.#link;
    this.#link = null;
    this.#ready = null;
    if (opening === null) return;
    try {
      await closeConnection((await opening).connection);
    } catch {
      // It never opened: nothing to close.
    }
  }

  /** A JetStream publish under `msgId`, waiting for the stream's answer within `timeoutMs`. */
  #request(
    link: Link,
    epoch: number,
    subject: string,
    body: Uint8Array | string,
    headers: readonly WireHeader[],
    msgId: string,
    abortable: Abortable,
  ): Promise<PubAckAnswer> {
    // A replay's second publish follows an answer: the connection may have gone meanwhile.
    if (link.state.epoch !== epoch || !link.state.connected) return Promise.resolve(LOST);
    const hdrs = natsHeaderSet(headers);
    hdrs.append(NATS_MSG_ID, msgId);
    return link.acks.publish(subject, body, hdrs, abortable, this.#config.timeoutMs);
  }

  /** A core publish, resolved once the server answered the flush that follows it. */
  async #publishFlushed(
    link: Link,
    subject: string,
    body: Uint8Array | string,
    headers: readonly WireHeader[],
  ): Promise<void> {
    link.connection.publish(subject, body, { headers: natsHeaderSet(headers) });
    await link.connection.flush();
  }

  #open(): Promise<Link> {
    let opening = this.#link;
    if (opening === null) {
      const created = openConnection({
        servers: this.#config.servers,
        credentials: this.#config,
        name: `queuebox destination ${this.#name}`,
        timeoutMs: this.#config.timeoutMs,
      }).then(async (connection) => {
        if (this.#closed) {
          await closeConnection(connection);
          throw new Error('the publisher is closed');
        }
        // A connection the client gave up on (it never does with endless reconnects, but an
        // authorization change can end it) is replaced by the next publish.
        void connection.closed().then(() => {
          if (this.#link !== created) return;
          this.#link = null;
          this.#ready = null;
        });
        const link: Link = {
          connection,
          acks: new PubAckRequests(connection),
          state: new ConnectionState(connection),
        };
        // A loss fails every publish waiting for its PubAck: it can no longer come.
        link.state.listen((connected) => {
          if (!connected) link.acks.cancelAll('the connection to NATS was lost');
        });
        if (this.#link === created) this.#ready = link;
        return link;
      });
      created.catch(() => {
        if (this.#link === created) this.#link = null;
      });
      this.#link = opening = created;
    }
    return opening;
  }

  /**
   * `work` (connecting, a core publish's flush) bounded by the destination's timeout and the
   * caller's abort; with `link`, also ended by the loss of the connection it was sent on, or by
   * close(). The bound is a backstop: the client's own connect timeout answers first.
   */
  async #bounded<T>(
    work: Promise<T>,
    signal: AbortSignal,
    link?: Link,
    epoch?: number,
  ): Promise<Bounded<T>> {
    const wait = bounded(work, this.#config.timeoutMs + 50, signal);
    this.#waits.add(wait);
    const stop = link?.state.listen((connected) => {
      if (!connected) wait.cancel('the connection to NATS was lost');
    });
    if (link !== undefined && link.state.epoch !== epoch)
      wait.cancel('the connection to NATS was lost');
    try {
      return await wait.result;
    } finally {
      stop?.();
      this.#waits.delete(wait);
    }
  }

  #warnUnsent(messageId: string, names: readonly string[]): void {
    const quoted = names.map((name) => sanitize(JSON.stringify(name.slice(0, 100)))).join(', ');
    this.#logger.warn(
      `Message ${messageId} has header name(s) ${quoted} that a NATS header cannot carry (printable ASCII without ':'), so QueueBox sent it without them.`,
      { messageId, destination: this.#name },
    );
  }
}

/** The message id of a replayed row's delivery: its own per replay, stable across a reclaim. */
export function replayMessageId(message: OutboxMessage): string {
  const at = message.scheduledAt.getTime();
  return `${message.id}:${Number.isFinite(at) ? at : randomUUID()}`;
}

/**
 * Why NATS cannot take `subject` for a publish, or null: an empty token, white space or a
 * control character, or a wildcard token (`*`, `>`) would be refused by the server, and a
 * wildcard or a blank subject is never what a template meant.
 */
export function subjectProblem(destination: string, subject: string): string | null {
  if (subject.trim() === '') {
    return `The destination '${destination}' resolved no subject for this message`;
  }
  const tokens = subject.split('.');
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  if (/[\s\x00-\x1f\x7f]/.test(subject) || tokens.some((t) => t === '' || t === '*' || t === '>')) {
    return `Publish failed: '${sanitize(subject.slice(0, 200))}' is not a subject NATS can publish to (no empty token, white space or wildcard)`;
  }
  return null;
}

function natsHeaderSet(headers: readonly WireHeader[]): MsgHdrs {
  const hdrs = natsHeaders();
  for (const [name, value] of headers) hdrs.append(name, value);
  return hdrs;
}

/** The outcome of a JetStream publish from how it ended. */
function ackOutcome(answer: PubAckAnswer, messageId: string, timeoutMs: number): PublishOutcome {
  switch (answer.kind) {
    case 'ack':
      return SUCCESS;
    case 'refused':
      return failure(`Publish failed: ${answer.error}`);
    default:
      return outcomeOf(answer, messageId, timeoutMs, 'ack');
  }
}

function outcomeOf(
  result: Bounded<unknown> | Exclude<PubAckAnswer, { kind: 'ack' | 'refused' }>,
  messageId: string,
  timeoutMs: number,
  stage: 'connecting' | 'ack' | 'flush',
): PublishOutcome {
  switch (result.kind) {
    case 'done':
      return SUCCESS;
    case 'timeout':
      if (stage === 'ack')
        return failure(`Publish not acknowledged: no PubAck within ${timeoutMs} ms`);
      return failure(
        `Publish failed: NATS did not answer within ${timeoutMs} ms (${stage === 'flush' ? 'flushing' : 'connecting'})`,
      );
    case 'aborted':
      return failure('Publish abandoned: the claim on the message ended');
    case 'cancelled':
      return failure(
        `Publish failed: ${result.reason}, so message ${messageId} was not acknowledged`,
      );
    case 'failed':
      return {
        ok: false,
        error: natsError(result.error, `Publish failed: ${errorText(result.error)}`),
      };
  }
}

const SUCCESS: PublishOutcome = { ok: true };
const LOST: PubAckAnswer = { kind: 'cancelled', reason: 'the connection to NATS was lost' };

function failure(text: string, retryable = true): PublishOutcome {
  // Every failure takes the retry path of spec §4.5, decided by the poller from the row.
  return { ok: false, error: publishFailed(text, retryable) };
}
