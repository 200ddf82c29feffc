/**
 * JetStream publishes waiting for their PubAck over ONE reply subscription per connection
 * (`<inbox>.*`, a token per publish), in place of the client's `js.publish`; and ONE sweep timer
 * that ends the waits past their deadline or whose claim ended, in place of a timer and an abort
 * listener per publish.
 *
 * Why: `js.publish` goes through `nc.request`, which builds per publish a request object, a
 * timeout promise with a timer of its own, a `Promise.race` and, for every request answered, a
 * `NatsError` with its stack (the request cancels itself after resolving and rejects its settled
 * promise with a fresh error). Those objects were a large part of a publish's CPU through
 * `js.publish`; this way a publish costs much less and more go out per second. Node's
 * `AbortSignal`s are costly too (an EventTarget each): a wait registers itself as its claim's
 * cancel listener instead (one field of the claim), and only a caller without one has its
 * signal's `aborted` read by the sweep.
 *
 * What the client did that this keeps: the stream's answer parsed as a PubAck (an `error`
 * object is the stream's refusal), a 503 status without a body is "no responders" (no stream
 * takes the subject), a permission violation for a publish fails the publishes waiting on that
 * subject at once, and a refused reply subscription fails every waiting publish and is opened
 * again by the next one. A wait ends at most `SWEEP_MS` after its deadline or its abort, never
 * before its deadline.
 */
import {
  createInbox,
  PermissionViolationError,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
} from '@nats-io/transport-node';
import type { CancelListener, PublishRequest } from '@queuebox/core';
import { errorText } from '../connection.js';

/** How one publish ended. */
export type PubAckAnswer =
  | { readonly kind: 'ack'; readonly duplicate: boolean }
  | { readonly kind: 'refused'; readonly error: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'cancelled'; readonly reason: string };

/**
 * What carries the claim on the message: its cancel listener when it has one (the wait then ends
 * as soon as the claim does, and no AbortSignal is ever made for it), else its AbortSignal, read
 * only by the sweep, so it may make it lazily.
 */
export type Abortable = Pick<PublishRequest, 'signal' | 'watchCancel' | 'unwatchCancel'>;

/** One publish waiting for its PubAck; the claim's cancel listener when it has one. */
class Waiting implements CancelListener {
  constructor(
    readonly token: string,
    readonly subject: string,
    readonly deadline: number,
    readonly abortable: Abortable,
    /** Whether the claim is watched through `watchCancel` (no signal to read at the sweep). */
    readonly watched: boolean,
    readonly settle: (answer: PubAckAnswer) => void,
    private readonly owner: PubAckRequests,
  ) {}

  cancelled(): void {
    this.owner.end(this.token, ABORTED);
  }
}

export const NO_RESPONDERS = 'no JetStream stream takes this subject (503 no responders)';

/** How often the waits are checked for their deadline and their abort. */
export const SWEEP_MS = 20;

const TIMEOUT: PubAckAnswer = { kind: 'timeout' };
const ABORTED: PubAckAnswer = { kind: 'aborted' };

export class PubAckRequests {
  readonly #connection: NatsConnection;
  readonly #waiting = new Map<string, Waiting>();
  #prefix = '';
  #subscribed = false;
  #next = 0;
  #sweep: NodeJS.Timeout | null = null;

  constructor(connection: NatsConnection) {
    this.#connection = connection;
    void this.#watchRefusals();
  }

  /**
   * Publishes `body` to `subject` with `headers` and resolves with the stream's answer, or with
   * how the wait ended: `timeoutMs` passed, the caller's signal aborted, or `cancelAll`. Never
   * rejects.
   */
  publish(
    subject: string,
    body: Uint8Array | string,
    headers: MsgHdrs,
    abortable: Abortable,
    timeoutMs: number,
  ): Promise<PubAckAnswer> {
    if (!this.#subscribed) this.#subscribe();
    const token = (this.#next++).toString(36);
    const deadline = performance.now() + timeoutMs;
    const watched = abortable.watchCancel !== undefined;
    let waiting!: Waiting;
    const answer = new Promise<PubAckAnswer>((settle) => {
      waiting = new Waiting(token, subject, deadline, abortable, watched, settle, this);
    });
    // The claim ended before the publish: nothing is sent.
    if (watched && abortable.watchCancel?.(waiting) !== true) return Promise.resolve(ABORTED);
    this.#waiting.set(token, waiting);
    this.#sweep ??= setInterval(() => this.#sweepWaits(), SWEEP_MS);
    try {
      this.#connection.publish(subject, body, { reply: this.#prefix + token, headers });
    } catch (error: unknown) {
      this.#settle(token, { kind: 'refused', error: errorText(error) });
    }
    return answer;
  }

  /** Ends every wait with `cancelled` (the connection was lost, the publisher closed). */
  cancelAll(reason: string): void {
    this.#failAll({ kind: 'cancelled', reason });
    this.#stopSweepWhenIdle();
  }

  #subscribe(): void {
    this.#prefix = `${createInbox()}.`;
    this.#subscribed = true;
    this.#connection.subscribe(`${this.#prefix}*`, {
      callback: (error, msg) => {
        if (error !== null) {
          // The server refused the subscription (no permission on the inbox): nothing waiting
          // can be answered; the next publish subscribes again.
          this.#subscribed = false;
          this.#failAll({ kind: 'refused', error: errorText(error) });
          return;
        }
        this.#settle(msg.subject.slice(this.#prefix.length), answerOf(msg));
      },
    });
  }

  /** Ends the wait of `token` with `answer`, if it still waits (the claim's listener calls it). */
  end(token: string, answer: PubAckAnswer): void {
    this.#settle(token, answer);
  }

  #settle(token: string, answer: PubAckAnswer): void {
    const waiting = this.#waiting.get(token);
    if (waiting === undefined) return;
    this.#waiting.delete(token);
    if (waiting.watched) waiting.abortable.unwatchCancel?.(waiting);
    waiting.settle(answer);
  }

  #failAll(answer: PubAckAnswer, subject?: string): void {
    for (const [token, waiting] of this.#waiting) {
      if (subject === undefined || waiting.subject === subject) this.#settle(token, answer);
    }
  }

  #sweepWaits(): void {
    const now = performance.now();
    for (const [token, waiting] of this.#waiting) {
      if (!waiting.watched && waiting.abortable.signal.aborted) this.#settle(token, ABORTED);
      else if (now >= waiting.deadline) this.#settle(token, TIMEOUT);
    }
    this.#stopSweepWhenIdle();
  }

  #stopSweepWhenIdle(): void {
    if (this.#waiting.size === 0 && this.#sweep !== null) {
      clearInterval(this.#sweep);
      this.#sweep = null;
    }
  }

  /**
   * A publish the server refuses for lack of permission is answered on the status stream, not
   * on the reply subject: it fails the publishes waiting on that subject.
   */
  async #watchRefusals(): Promise<void> {
    try {
      for await (const status of this.#connection.status()) {
        if (status.type !== 'error') continue;
        const refusal = status.error;
        if (refusal instanceof PermissionViolationError && refusal.operation === 'publish') {
          const error = `Permissions Violation for Publish to "${refusal.subject}"`;
          this.#failAll({ kind: 'refused', error }, refusal.subject);
        }
      }
    } catch {
      // The status stream ends with the connection.
    }
  }
}

const NOT_A_PUBACK: PubAckAnswer = {
  kind: 'refused',
  error: 'the answer to the publish was not a JetStream PubAck',
};

/** The stream's answer in `msg`: a PubAck, a refusal, or no responders. */
export function answerOf(msg: Msg): PubAckAnswer {
  if (msg.data.length === 0 && msg.headers?.code === 503) {
    return { kind: 'refused', error: NO_RESPONDERS };
  }
  let ack: unknown;
  try {
    ack = JSON.parse(msg.string());
  } catch {
    return NOT_A_PUBACK;
  }
  if (typeof ack !== 'object' || ack === null) return NOT_A_PUBACK;
  const { error, stream, duplicate } = ack as {
    error?: { code?: unknown; description?: unknown };
    stream?: unknown;
    duplicate?: unknown;
  };
  if (error !== undefined) return { kind: 'refused', error: refusalText(error) };
  if (typeof stream !== 'string' || stream === '') return NOT_A_PUBACK;
  return { kind: 'ack', duplicate: duplicate === true };
}

function refusalText(error: { code?: unknown; description?: unknown }): string {
  const description = typeof error.description === 'string' ? error.description : 'no reason given';
  const code = typeof error.code === 'number' ? ` (${error.code})` : '';
  return `the stream refused it: ${description}${code}`;
}
