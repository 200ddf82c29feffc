/**
 * The publisher contract (spec §4.3, §6, §18.3): what every Publisher does, whatever its
 * transport. It delivers the payload text as it is with the row's identity, merges static and
 * row headers (the row wins), sends the headers QueueBox owns (core's `OwnedHeader`) once with its
 * own values whatever the row carries, reports a refusal and a silent receiver as failed outcomes (never a
 * throw), stops when its caller aborts, and closes within a bound even with a publish in flight.
 * Each transport runs it against a real receiver (the HTTP sink, a broker queue, ...) through a
 * harness that can make that receiver refuse or fall silent. What one transport alone does (HTTP
 * status texts, AMQP properties, Kafka record keys) stays with its own tests.
 */
import {
  JsonPayload,
  type OutboxMessage,
  type Publisher,
  type PublishOutcome,
} from '@queuebox/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultProxy } from '../fault-proxy.js';
import { serviceSkip, serviceUrl, type ServiceLookup } from '../services.js';
import { skipTitle } from './probe.js';
import { outboxMessage } from '../fixtures/outbox-message.js';

/** One message as the receiver got it. */
export interface ReceivedMessage {
  /** The body, as text. */
  readonly body: string;
  /** Where the transport carries the row id (HTTP `X-Message-Id`, AMQP `message_id`, ...). */
  readonly messageId: string | undefined;
  /**
   * Every header, the name in lower case; a name that came more than once, in any letter case,
   * with its values joined by `, ` (so a second copy is never hidden).
   */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A harness's header record from `[name, value]` pairs as the transport delivered them: names in
 * lower case, the values of a name that came more than once (in any letter case) joined by `, `.
 */
export function joinedByLowerCase(
  entries: Iterable<readonly [string, string]>,
): Record<string, string> {
  const headers = new Map<string, string>();
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    const present = headers.get(lower);
    headers.set(lower, present === undefined ? value : `${present}, ${value}`);
  }
  return Object.fromEntries(headers);
}

export interface PublisherOptions {
  /** The destination's static `headers`. */
  readonly staticHeaders?: Readonly<Record<string, string>>;
  /** The destination's `timeoutMs`, where its type takes one. */
  readonly timeoutMs?: number;
}

/** The publisher under test and the real receiver behind its one destination. */
export interface PublisherHarness {
  readonly publisher: Publisher;
  /** The destination name the publisher serves. */
  readonly destination: string;
  /** The time after which a publish to a silent receiver fails (the option, or the type's own). */
  readonly timeoutMs: number;
  /**
   * What the router resolves for this destination and hands every publish: the exchange (topic,
   * subject) and the routing key. A transport without them (HTTP) leaves them out: null.
   */
  readonly address?: string | null;
  readonly routingKey?: string | null;
  /** Every message the receiver got so far, in arrival order (the contract polls it). */
  received(): Promise<ReceivedMessage[]>;
  /**
   * A fault proxy between the publisher and a broker: where there is one, the contract stalls the
   * receiver by holding the broker's answers back in it (unless the harness has its own `stall`),
   * lets them through again before `accept`, and closes it after the publisher, before `close`.
   */
  readonly proxy?: FaultProxy;
  /** From now on the receiver refuses every message. */
  refuse(): Promise<void>;
  /** From now on the receiver takes messages and never answers. */
  stall?(): Promise<void>;
  /** From now on the receiver accepts again. */
  accept(): Promise<void>;
  /** Tears the receiver down; the contract closes the publisher itself first. */
  close(): Promise<void>;
}

export interface PublisherTarget {
  /** Shown in the describe block, e.g. `HTTP publisher on the HTTP sink`. */
  readonly label: string;
  readonly skip?: string | false;
  /** The broker behind the receiver: where it is missing, the suite is skipped with the reason. */
  readonly service?: ServiceLookup;
  /** `url`: the service's, where the target names one. */
  open(options: PublisherOptions, url: string): Promise<PublisherHarness>;
}

/** A claimed outbox row as the router hands it to a publisher: the shared fixture. */
export { outboxMessage };

/** Polls until `done` holds for what arrived; fails the case after five seconds. */
async function arrival(
  h: PublisherHarness,
  done: (received: ReceivedMessage[]) => boolean,
): Promise<ReceivedMessage[]> {
  for (let waited = 0; ; waited += 10) {
    const received = await h.received();
    if (done(received)) return received;
    if (waited > 5_000) throw new Error(`the receiver got ${received.length} message(s)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The first `count` messages, once that many arrived. */
const arrived = async (h: PublisherHarness, count: number) =>
  (await arrival(h, (received) => received.length >= count)).slice(0, count);

/** The receiver stops answering: its own way, or the broker's answers held in the proxy. */
function stall(h: PublisherHarness): Promise<void> {
  if (h.stall) return h.stall();
  if (!h.proxy) throw new Error('a publisher harness has a proxy or its own stall()');
  h.proxy.setLatency({ toClient: 60_000 });
  return Promise.resolve();
}

/** The receiver answers again and accepts. */
function accept(h: PublisherHarness): Promise<void> {
  h.proxy?.setLatency(0);
  return h.accept();
}

export function publisherContract(target: PublisherTarget): void {
  const title = `publisher contract: ${target.label}`;
  const skip = target.service ? serviceSkip(target.service) : target.skip;
  describe.skipIf(Boolean(skip))(skipTitle(title, skip), () => {
    let open: PublisherHarness[] = [];

    afterEach(async () => {
      for (const harness of open) {
        await harness.publisher.close();
        await harness.proxy?.close();
        await harness.close();
      }
      open = [];
    });

    async function harnessWith(options: PublisherOptions = {}): Promise<PublisherHarness> {
      const url = target.service ? serviceUrl(target.service) : '';
      const harness = await target.open(options, url);
      open.push(harness);
      return harness;
    }

    function send(
      h: PublisherHarness,
      message: OutboxMessage = outboxMessage(),
      options: { payload?: JsonPayload; signal?: AbortSignal; destination?: string } = {},
    ): Promise<PublishOutcome> {
      return h.publisher.publish({
        message,
        destination: options.destination ?? h.destination,
        payload: options.payload ?? message.payload,
        routingKey: h.routingKey ?? null,
        address: h.address ?? null,
        signal: options.signal ?? new AbortController().signal,
      });
    }

    describe('delivery', () => {
      it('delivers the payload text exactly as stored, with the row id, and succeeds', async () => {
        const h = await harnessWith();
        // The stored text, never re-serialised: no number passes through a double.
        const text = '{"id": 12345678901234567890, "amount": 1.50}';
        const message = outboxMessage({ payload: JsonPayload.fromText(text) });
        expect(await send(h, message)).toEqual({ ok: true });
        const [received] = await arrived(h, 1);
        expect(received!.body).toBe(text);
        expect(received!.messageId).toBe(message.id);
      });

      it('sends the payload it is given (a transform result), not the row payload', async () => {
        const h = await harnessWith();
        const outcome = await send(h, outboxMessage(), {
          payload: JsonPayload.fromValue({ transformed: true }),
        });
        expect(outcome).toEqual({ ok: true });
        expect(JSON.parse((await arrived(h, 1))[0]!.body)).toEqual({ transformed: true });
      });

      it('delivers messages published one after another in that order, each with its own id', async () => {
        const h = await harnessWith();
        const messages = Array.from({ length: 5 }, (_, n) =>
          outboxMessage({
            id: `0198c2f4-5d6e-7a8b-9c0d-00000000000${n}`,
            payload: JsonPayload.fromValue({ n }),
          }),
        );
        for (const m of messages) expect(await send(h, m)).toEqual({ ok: true });
        const received = await arrived(h, 5);
        expect(received.map((r) => r.messageId)).toEqual(messages.map((m) => m.id));
        expect(received.map((r) => (JSON.parse(r.body) as { n: number }).n)).toEqual([
          0, 1, 2, 3, 4,
        ]);
      });

      it('serves its own destination and no other', async () => {
        const h = await harnessWith();
        expect(h.publisher.supports(h.destination)).toBe(true);
        expect(h.publisher.supports('no-such-destination')).toBe(false);
        const outcome = await send(h, outboxMessage(), { destination: 'no-such-destination' });
        expect(outcome.ok).toBe(false);
      });
    });

    describe('headers', () => {
      it('carries the topic and the attempt number as x-topic and x-attempt', async () => {
        const h = await harnessWith();
        await send(h, outboxMessage({ topic: 'orders.paid', attempt: 3 }));
        const [received] = await arrived(h, 1);
        expect(received!.headers['x-topic']).toBe('orders.paid');
        expect(received!.headers['x-attempt']).toBe('3');
      });

      it('carries the static and the row headers, the row winning over a static header', async () => {
        const h = await harnessWith({
          staticHeaders: { 'x-static': 'static', 'x-shared': 'static' },
        });
        await send(
          h,
          outboxMessage({
            headers: { 'x-shared': 'row', 'x-row': 'row-only', 'x-correlation-id': 'c-1' },
          }),
        );
        const [received] = await arrived(h, 1);
        expect(received!.headers).toMatchObject({
          'x-static': 'static',
          'x-shared': 'row',
          'x-row': 'row-only',
          'x-correlation-id': 'c-1',
        });
      });
    });

    describe('owned headers', () => {
      // A receiver deduplicates on the message id and trusts the topic and attempt: a copy a row
      // carries (a webhook sender's, through the relay) must never travel beside QueueBox's.
      const forged = {
        'X-Message-Id': 'forged-id',
        'x-TOPIC': 'forged.topic',
        'X-Attempt': '99',
        'x-message-key': 'forged-key',
      };
      const rows: [kind: string, extra: Record<string, string>][] = [
        ["an application's own row", {}],
        ['a relayed row', { 'x-inbox-id': '0198c2f4-5d6e-7a8b-9c0d-0000000000ff' }],
      ];
      for (const [kind, extra] of rows) {
        it(`sends its own message id, topic, attempt and key, never a copy ${kind} carries`, async () => {
          const h = await harnessWith({ staticHeaders: { 'X-Topic': 'static.topic' } });
          const message = outboxMessage({
            topic: 'orders.paid',
            attempt: 3,
            key: 'order-7',
            headers: { ...forged, ...extra, 'x-row': 'kept' },
          });
          expect(await send(h, message)).toEqual({ ok: true });
          const [received] = await arrived(h, 1);
          expect(received!.messageId).toBe(message.id);
          expect(received!.headers['x-topic']).toBe('orders.paid');
          expect(received!.headers['x-attempt']).toBe('3');
          // A transport that carries the id or key elsewhere (AMQP, a Kafka record key) sends no
          // header of that name at all; one that sends the header sends QueueBox's value alone.
          expect([undefined, message.id]).toContain(received!.headers['x-message-id']);
          expect([undefined, 'order-7']).toContain(received!.headers['x-message-key']);
          expect(received!.headers['x-row']).toBe('kept');
        });
      }
    });

    describe('failure', () => {
      it('reports a refusal as a failed outcome with a reason, and delivers again once accepted', async () => {
        const h = await harnessWith();
        await h.refuse();
        const outcome = await send(h);
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) {
          expect(outcome.error.message.length).toBeGreaterThan(0);
          // Classified: a code of core's taxonomy and whether a later attempt can succeed.
          expect(outcome.error.code).toMatch(/^[a-z_]+$/);
          expect(typeof outcome.error.retryable).toBe('boolean');
        }
        await accept(h);
        const message = outboxMessage({ id: '0198c2f4-5d6e-7a8b-9c0d-0000000000aa' });
        expect(await send(h, message)).toEqual({ ok: true });
        // Whether the refused message reached the receiver is the transport's business.
        await arrival(h, (received) => received.some((r) => r.messageId === message.id));
      });
    });

    describe('timeout', () => {
      it('fails a publish the receiver never answers after its timeout, not before', async () => {
        const h = await harnessWith({ timeoutMs: 300 });
        await stall(h);
        const started = performance.now();
        const outcome = await send(h);
        const elapsed = performance.now() - started;
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.error.message.length).toBeGreaterThan(0);
        expect(elapsed).toBeGreaterThanOrEqual(h.timeoutMs * 0.9);
        expect(elapsed).toBeLessThan(h.timeoutMs + 2_000);
      });

      it('stops waiting when the caller aborts (claim lost)', async () => {
        const h = await harnessWith({ timeoutMs: 30_000 });
        await stall(h);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const started = performance.now();
        const outcome = await send(h, outboxMessage(), { signal: controller.signal });
        expect(outcome.ok).toBe(false);
        expect(performance.now() - started).toBeLessThan(3_000);
      });
    });

    describe('close', () => {
      it('closes within a bound while a publish to a silent receiver is in flight, which then fails', async () => {
        const h = await harnessWith({ timeoutMs: 30_000 });
        await stall(h);
        const inFlight = send(h);
        // Let the message reach the receiver before closing.
        await arrived(h, 1);
        const started = performance.now();
        await h.publisher.close();
        expect(performance.now() - started).toBeLessThan(5_000);
        const outcome = await Promise.race([
          inFlight,
          new Promise<'still waiting'>((resolve) =>
            setTimeout(() => resolve('still waiting'), 5_000),
          ),
        ]);
        expect(outcome).toMatchObject({ ok: false });
      });

      it('closes an idle publisher, and a second close resolves too', async () => {
        const h = await harnessWith();
        expect(await send(h)).toEqual({ ok: true });
        await h.publisher.close();
        await h.publisher.close();
      });
    });
  });
}
