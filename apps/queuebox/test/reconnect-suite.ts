/**
 * One "connections cut mid-run" suite for every broker. The service reaches the broker only
 * through two fault proxies of its own (one for the destination, one for the source), so a test
 * cuts its broker connections without touching the shared broker. Both sides reconnect by
 * themselves, readiness says `down` for the source meanwhile, and nothing is lost: every queued
 * message is stored once and settled, every outbox row is sent and arrives (at least once). Each
 * broker's file supplies a `ReconnectBroker`: its scratch, its YAML through the proxies, how it
 * sends, what arrived, and its bounds.
 */
import type { FaultProxy, FreshDatabase } from '@queuebox/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProviderRegistry } from '../src/providers.js';
import { count, readiness } from './e2e-rows.js';
import { suiteScratch } from './scratch.js';
import { openDatabase, openProxy, openService, type TestService } from './scratch-opens.js';
import { eventually } from './service.js';
import { RELAY_OFF } from './yaml-blocks.js';

export interface ReconnectProxies {
  readonly toSource: FaultProxy;
  readonly toDestination: FaultProxy;
}

export interface ReconnectScratch {
  /** The `out` destination's and the `orders` source's YAML lines, indented by four. */
  readonly destinationYaml: string;
  readonly sourceYaml: string;
  /** Where the proxies cannot go in the YAML (Kafka), the registry that routes through them. */
  readonly providers?: ProviderRegistry;
  send(body: string, i: number): Promise<unknown>;
  /** Resolves when the broker holds nothing of the source unsettled. */
  settled(): Promise<unknown>;
  /** The message ids (`x-message-id`) of every message the destination holds, repeats included. */
  arrived(): Promise<readonly (string | undefined)[]>;
  cleanup(): Promise<void>;
}

export interface ReconnectBroker {
  readonly kind: string;
  readonly title: string;
  readonly ready: boolean;
  readonly pgUrl: string;
  readonly database: string;
  /** The broker's address, which both proxies forward to. */
  readonly target: { readonly host: string; readonly port: number };
  open(proxies: ReconnectProxies): Promise<ReconnectScratch>;
  /** How long a source may take to be up again after the cut (a Kafka group rejoins first). */
  readonly rejoinMs: number;
  readonly testMs: number;
  /** How long the destination stays cut off. */
  readonly destinationCutMs: number;
  /** Answers delayed during the destination test, so the cut finds publishes waiting for them. */
  readonly slowAcks: boolean;
  /** Rows carry keys (spread over partitions) rather than none. */
  readonly keyedRows: boolean;
  /** The broker drops a repeated message id: exactly one copy of each row arrives. */
  readonly deduplicates: boolean;
}

export function reconnectSuite(broker: ReconnectBroker): void {
  describe.skipIf(!broker.ready)(broker.title, () => {
    const opened = suiteScratch();
    let db: FreshDatabase;
    let toSource: FaultProxy;
    let toDestination: FaultProxy;
    let scratch: ReconnectScratch;
    let service: TestService;

    beforeAll(async () => {
      db = await openDatabase(opened, broker.pgUrl, broker.database);
      toSource = await openProxy(opened, broker.target);
      toDestination = await openProxy(opened, broker.target);
      scratch = await opened.open(broker.open({ toSource, toDestination }), (s) => s.cleanup());
      service = await openService(
        opened,
        db,
        `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 50
  maxAttempts: 50
${RELAY_OFF}
destinations:
  out:
${scratch.destinationYaml}
routes:
  - topicPattern: "cut.*"
    destination: out
sources:
  orders:
${scratch.sourceYaml}
`,
        {},
        { providers: scratch.providers },
      );
    });

    const sourceReadiness = () => readiness(service.base, `${broker.kind}.orders`);
    const inbox = (what = 'count(*)') => count(db, `SELECT ${what}::int AS n FROM inbox`);
    const rows = (where: string) =>
      count(db, `SELECT count(*)::int AS n FROM outbox WHERE topic = 'cut.row' AND ${where}`);

    it(
      'stores every message once although the source connection is cut mid-run, and is not ready meanwhile',
      async () => {
        await eventually(async () => (await sourceReadiness()).source === 'up', broker.rejoinMs);
        expect((await sourceReadiness()).status).toBe(200);
        const total = 400;
        for (let i = 0; i < total; i++)
          await scratch.send(JSON.stringify({ id: `m-${i}`, n: i }), i);
        await eventually(async () => (await inbox()) >= 20);
        toSource.refuse();
        toSource.cut();
        await eventually(async () => (await sourceReadiness()).source === 'down', 20_000);
        expect((await sourceReadiness()).status).toBe(503);
        await new Promise((resolve) => setTimeout(resolve, 500));
        toSource.restore();
        await eventually(async () => (await sourceReadiness()).source === 'up', broker.rejoinMs);
        await eventually(async () => (await inbox()) === total, 30_000);
        expect(await inbox('count(DISTINCT idempotency_key)')).toBe(total);
        await scratch.settled();
        expect(toSource.stats().accepted).toBeGreaterThanOrEqual(2);
      },
      broker.testMs,
    );

    it(
      'sends every outbox row although the destination connection is cut mid-run',
      async () => {
        const total = 400;
        if (broker.slowAcks) toDestination.setLatency({ toClient: 200 });
        const ids = await db.sql<{ id: string }[]>`
          INSERT INTO outbox (topic, key, payload)
          SELECT 'cut.row', ${broker.keyedRows ? 'k-' : null}::text || (n % 16), jsonb_build_object('n', n)
          FROM generate_series(1, ${total}) AS n
          RETURNING id`;
        await eventually(async () => (await scratch.arrived()).length >= 20, 30_000);
        toDestination.refuse();
        toDestination.cut();
        await new Promise((resolve) => setTimeout(resolve, broker.destinationCutMs));
        toDestination.setLatency(0);
        toDestination.restore();
        await eventually(async () => (await rows(`state = 'sent'`)) === total, 60_000);
        // At least once: a publish whose answer the cut swallowed may arrive twice; none is missing.
        await eventually(async () => {
          const arrived = new Set(await scratch.arrived());
          return ids.every((row) => arrived.has(row.id));
        }, 30_000);
        const arrived = await scratch.arrived();
        if (broker.deduplicates) expect(arrived).toHaveLength(total);
        else expect(arrived.length).toBeGreaterThanOrEqual(total);
        expect(await rows('attempt > 0')).toBeGreaterThan(0);
      },
      broker.testMs,
    );
  });
}
