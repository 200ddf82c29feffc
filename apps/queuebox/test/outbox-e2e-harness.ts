/**
 * What the broker outbox end-to-end files share: a fresh database, a fault proxy to the broker
 * (the `slow` destination goes through it), the service with the outbox, the relay, the admin
 * API and a `hooks` webhook source, and a `slow.warm` row sent first so the slow destination's
 * connection is open before its answers slow down. Each broker's file declares its destinations
 * and routes, and keeps the tests whose assertions are its own; the helpers here are the steps
 * they take alike (a row dead with its reason, an admin replay, a webhook posted, the rows of
 * the in-order test and its verdict).
 */
import type { FaultProxy, FreshDatabase } from '@queuebox/testing';
import { beforeAll, expect } from 'vitest';
import type { ProviderRegistry } from '../src/providers.js';
import { outboxRows } from './e2e-rows.js';
import { postJson } from './http-calls.js';
import { suiteScratch } from './scratch.js';
import { openDatabase, openProxy, openService, type TestService } from './scratch-opens.js';
import { eventually } from './service.js';
import { webhookSource } from './yaml-blocks.js';

/** The first test's row text: numbers a JSON parse would change, which must arrive as stored. */
export const REFERENCE_TEXT = '{"id": 12345678901234567890, "amount": 1.50}';

/** The in-order test's keys and rows per key; rows 3 and 8 of each key fail at first. */
export const ORDER_KEYS = Array.from({ length: 8 }, (_, k) => `key-${k}`);
export const ROWS_PER_KEY = 12;
const failsAtFirst = (seq: number) => seq === 3 || seq === 8;

/** One message of the in-order test as it arrived: its row's key and sequence, its attempt. */
export interface OrderedArrival {
  readonly key: string | null;
  readonly seq: number;
  readonly attempt: number;
}

/** Counts the `seq.step` rows that match `where`. */
async function seqSteps(db: FreshDatabase, where: string): Promise<number> {
  const [found] = await db.sql.unsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM outbox WHERE topic = 'seq.step' AND ${where}`,
  );
  return found!.n;
}

export interface OutboxE2EBroker {
  readonly pgUrl: string;
  readonly database: string;
  readonly target: { readonly host: string; readonly port: number };
  /** The broker's scratch, then its `destinations:` and `routes:` entries, indented by two. */
  open(proxy: FaultProxy): Promise<{
    readonly destinations: string;
    readonly routes: string;
    readonly providers?: ProviderRegistry;
    cleanup(): Promise<void>;
  }>;
  /** Extra lines of the `hooks` source, indented by four. */
  readonly hooks?: string;
  /** How long the warm row may take (a Kafka producer connects first). */
  readonly warmMs?: number;
}

export function outboxE2E(broker: OutboxE2EBroker, setupMs?: number) {
  const opened = suiteScratch();
  let db: FreshDatabase;
  let proxy: FaultProxy;
  let service: TestService;
  const rows = outboxRows(() => db);

  beforeAll(async () => {
    db = await openDatabase(opened, broker.pgUrl, broker.database);
    proxy = await openProxy(opened, broker.target);
    const scratch = await opened.open(broker.open(proxy), (s) => s.cleanup());
    service = await openService(
      opened,
      db,
      `
database:
  migrate: true
outbox:
  retryBaseDelayMs: 50
  pollIntervalMs: 50
inbox:
  relay:
    enabled: true
    pollIntervalMs: 50
admin:
  enabled: true
  insecure: true
destinations:
${scratch.destinations}
routes:
  - topicPattern: "hook.*"
    destination: events
  - topicPattern: "slow.*"
    destination: slow
${scratch.routes}
sources:
${webhookSource('hooks')}
${broker.hooks ?? ''}`,
      {},
      { providers: scratch.providers },
    );
    const [warm] = await rows.insert('slow.warm', { warm: true });
    await rows.sent(warm!.id, broker.warmMs);
  }, setupMs);

  /** A row of `topic` retried `attempts` times, then dead with `error(id)` as its last error. */
  const expectDead = async (
    topic: string,
    payload: object,
    options: { attempts: number; key?: string; timeoutMs?: number },
    error: (id: string) => string,
  ) => {
    const [inserted] = await rows.insert(topic, payload, {
      maxAttempts: options.attempts,
      ...(options.key === undefined ? {} : { key: options.key }),
    });
    const id = inserted!.id;
    const final = await rows.dead(id, options.timeoutMs);
    expect(final.attempt).toBe(options.attempts);
    expect(final.last_error).toBe(error(id));
    return id;
  };

  return {
    ...rows,
    db: () => db,
    expectDead,
    /**
     * The first test's row (`order.created`, key `order-42`, a header the `events` destination
     * also sets, the row's value winning, and two of its own), once sent; resolves to its id.
     */
    sendReferenceRow: async () => {
      const [inserted] = await rows.insert('order.created', REFERENCE_TEXT, {
        key: 'order-42',
        headers: { 'X-Correlation-Id': 'corr-1', 'X-Static': 'row-wins', 'X-Tenant': 't1' },
      });
      await rows.sent(inserted!.id);
      return inserted!.id;
    },
    /**
     * A `slow.row` row while the broker's answers to the slow destination come `lateMs` late:
     * retried, then dead with `error(id)`; the answers are on time again after it.
     */
    expectDeadWhileLate: async (
      lateMs: number,
      options: { attempts: number; timeoutMs: number },
      error: (id: string) => string,
    ) => {
      proxy.setLatency({ toClient: lateMs });
      try {
        return await expectDead('slow.row', { n: 1 }, options, error);
      } finally {
        proxy.setLatency(0);
      }
    },
    /** The admin API's replay of one sent row. */
    replay: async (id: string) => {
      const response = await postJson(`${service.base}/admin/replay`, { ids: [id] });
      expect(await response.json()).toEqual({ moved: 1 });
    },
    /** A webhook to the `hooks` source; resolves to the inbox row's message id. */
    postHook: async (body: object, headers: Record<string, string>) => {
      const response = await postJson(`${service.base}/inbox/hooks`, body, headers);
      expect(response.status).toBe(202);
      return ((await response.json()) as { messageId: string }).messageId;
    },
    /**
     * The in-order test's rows (topic `seq.step`, 50 attempts each), committed at once, in
     * sequence order across the keys; `payload` makes rows 3 and 8 of each key fail at first.
     * Resolves once the first 8 have failed, so the file can then let them through.
     */
    seedOrdered: async (
      payload: (key: string, seq: number, failsAtFirst: boolean) => object,
      timeoutMs?: number,
    ) => {
      await db.sql.begin(async (tx) => {
        for (let seq = 0; seq < ROWS_PER_KEY; seq++) {
          for (const key of ORDER_KEYS) {
            await tx.unsafe(
              `INSERT INTO outbox (topic, key, payload, max_attempts) VALUES ('seq.step', $1, $2::text::jsonb, 50)`,
              [key, JSON.stringify(payload(key, seq, failsAtFirst(seq)))],
            );
          }
        }
      });
      await eventually(async () => (await seqSteps(db, 'attempt > 0')) >= 8, timeoutMs);
    },
    /** Resolves once every row of the in-order test is sent. */
    orderedSent: (timeoutMs: number) =>
      eventually(async () => (await seqSteps(db, "state <> 'sent'")) === 0, timeoutMs),
    /** Each key's rows arrived in sequence, and at least one per key only on a retry. */
    expectKeyOrder: (arrivals: readonly OrderedArrival[]) => {
      for (const key of ORDER_KEYS) {
        const sequence = arrivals.filter((a) => a.key === key).map((a) => a.seq);
        expect(sequence, key).toEqual(Array.from({ length: ROWS_PER_KEY }, (_, i) => i));
      }
      const retried = arrivals.filter((a) => a.attempt > 0);
      expect(retried.length).toBeGreaterThanOrEqual(ORDER_KEYS.length);
    },
  };
}
