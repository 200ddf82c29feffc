/**
 * One NATS destination (spec §6.4): its connection, opened by the first publish (one open at a
 * time however many publishes wait for it) and kept; the client re-establishes it after a loss.
 *
 * JetStream (`jetStream: true`): each publish waits for its own PubAck, up to `timeoutMs`, and
 * every publish the poller runs (up to `outbox.concurrency`) is in flight at once. The message
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
import {
  headers as natsHeaders,
  type JetStreamClient,
  type MsgHdrs,
  type NatsConnection,
  type PubAck,
} from 'nats';
import {
  sanitize,
  type HeaderMap,
  type Logger,
  type NatsDestinationConfig,
  type OutboxMessage,
  type PublishOutcome,
  type PublishRequest,
} from '@queuebox/core';
import { ConnectionState, closeConnection, errorText, openConnection } from '../connection.js';
import { bounded, type Bounded, type BoundedWait } from './bounded.js';
import { staticHeaderMap, wireHeaders } from './wire-message.js';

export interface DestinationLinkOptions {
  readonly name: string;
  readonly config: NatsDestinationConfig;
  readonly logger: Logger;
}

interface Link {
  readonly connection: NatsConnection;
  readonly jetStream: JetStreamClient;
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
    const refused = subjectProblem(this.#name, subject);
    if (refused !== null) return failure(refused);
    const wire = wireHeaders(message, this.#staticHeaders);
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
    const body = Buffer.from(request.payload.text, 'utf8');
    const epoch = link.state.epoch;
    const send = (msgId: string | null) =>
      this.#bounded(
        this.#send(link, subject, body, wire.headers, msgId),
        request.signal,
        link,
        epoch,
      );

    if (!this.#config.jetStream) {
      return outcomeOf(await send(null), message.id, this.#config.timeoutMs, 'flush');
    }
    const first = await send(message.id);
    if (first.kind !== 'done') return outcomeOf(first, message.id, this.#config.timeoutMs, 'ack');
    if (first.value?.duplicate !== true || message.attempt > 0) return SUCCESS;
    // A first attempt the stream already holds: a replay inside the duplicate window.
    const again = await send(replayMessageId(message));
    return outcomeOf(again, message.id, this.#config.timeoutMs, 'ack');
  }

  /** Closes the connection; publishes waiting for an answer fail. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wait of [...this.#waits]) wait.cancel('the publisher closed');
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

  /** The JetStream PubAck, or null for a core publish once flushed. */
  async #send(
    link: Link,
    subject: string,
    body: Uint8Array,
    headers: readonly (readonly [string, string])[],
    msgId: string | null,
  ): Promise<PubAck | null> {
    const hdrs: MsgHdrs = natsHeaders();
    for (const [name, value] of headers) hdrs.append(name, value);
    if (msgId === null) {
      link.connection.publish(subject, body, { headers: hdrs });
      await link.connection.flush();
      return null;
    }
    return link.jetStream.publish(subject, body, {
      headers: hdrs,
      msgID: msgId,
      timeout: this.#config.timeoutMs,
    });
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
          jetStream: connection.jetstream(),
          state: new ConnectionState(connection),
        };
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
   * `work` bounded by the destination's timeout and the caller's abort; with `link`, also ended
   * by the loss of the connection it was sent on, or by close().
   */
  async #bounded<T>(
    work: Promise<T>,
    signal: AbortSignal,
    link?: Link,
    epoch?: number,
  ): Promise<Bounded<T>> {
    // The driver's own timeout rejects first; this one is the backstop (connect, flush).
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

function outcomeOf(
  result: Bounded<PubAck | null | Link>,
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
      return failure(failureText(result.error, timeoutMs));
  }
}

function failureText(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: unknown }).code;
  if (code === '503') {
    return 'Publish failed: no JetStream stream takes this subject (503 no responders)';
  }
  if (code === 'TIMEOUT') return `Publish not acknowledged: no PubAck within ${timeoutMs} ms`;
  return `Publish failed: ${errorText(error)}`;
}

const SUCCESS: PublishOutcome = { ok: true };

function failure(error: string): PublishOutcome {
  // Every failure takes the retry path of spec §4.5, decided by the poller from the row.
  return { ok: false, error };
}
