import { randomUUID } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countingClaims,
  eventually,
  insertPull,
  openAdapter,
  recordingLogger,
  rowOf,
  sleep,
  start,
  type Adapter,
  type AdapterKind,
} from '../test/support.js';
import { deadLetter, inboxSql, retryAfter, type InboxMessage } from './index.js';

const pg = await requireService('postgres', 'inbox client: the pull worker contract');

/**
 * The library contract of spec §9.3, each rule on the real PostgreSQL through both adapters.
 * Every test uses a source of its own, so tests share one database without seeing each other.
 */
describe
  .skipIf(!pg.available)
  .each<{ kind: AdapterKind }>([{ kind: 'fromPg' }, { kind: 'fromPostgresJs' }])(
  'the pull worker through $kind',
  ({ kind }) => {
    let db: FreshDatabase;
    let adapter: Adapter;
    const newSource = () => `src_${randomUUID().slice(0, 8)}`;
    const work = (source: string) =>
      db.sql<{ message_id: string; note: string }[]>`SELECT message_id, note FROM work
        WHERE source = ${source} ORDER BY note`;

    beforeAll(async () => {
      db = await createFreshDatabase(pg.available ? pg.url : '');
      await runMigrations(db.sql, { logger: silentLogger });
      await db.sql`CREATE TABLE work (source text, message_id uuid, note text)`;
      adapter = openAdapter(kind, db.url);
    });
    afterAll(async () => {
      await adapter?.close();
      await db?.drop();
    });

    it('delivers every field, and the handler writes commit together with the completion', async () => {
      const source = newSource();
      const id = await insertPull(db, {
        source,
        aggregateId: 'order-1',
        eventType: 'order.created',
        payload: { total: 12.5, items: ['a'] },
        headers: { 'x-tenant': 'acme' },
        correlationId: 'corr-1',
      });
      const seen: InboxMessage[] = [];
      const worker = start(adapter.source, { source, pollIntervalMs: 50 }, async (message, tx) => {
        seen.push(message);
        await tx.query('INSERT INTO work (source, message_id, note) VALUES ($1, $2, $3)', [
          source,
          message.id,
          'done',
        ]);
      });
      await eventually(async () => (await rowOf(db, id)).state === 'processed');
      await worker.stop();
      expect(seen).toEqual([
        {
          id,
          source,
          idempotencyKey: `key-${id}`,
          aggregateId: 'order-1',
          eventType: 'order.created',
          payload: { total: 12.5, items: ['a'] },
          headers: { 'x-tenant': 'acme' },
          attempt: 0,
          correlationId: 'corr-1',
        },
      ]);
      expect(Object.keys(seen[0]!)).not.toContain('token');
      expect(JSON.stringify(seen[0])).not.toContain((await rowOf(db, id)).claim_token ?? 'none');
      expect(await work(source)).toEqual([{ message_id: id, note: 'done' }]);
      const row = await rowOf(db, id);
      expect(row).toMatchObject({ state: 'processed', claim_token: null });
      expect(row.processed_at).not.toBeNull();
    });

    it('rolls back what a failing handler wrote, then retries with a later schedule and attempt + 1', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const before = (await rowOf(db, id)).scheduled_at;
      const logger = recordingLogger();
      const worker = start(
        adapter.source,
        { source, pollIntervalMs: 50, logger, retryPolicy: () => retryAfter(60_000) },
        async (message, tx) => {
          await tx.query('INSERT INTO work (source, message_id, note) VALUES ($1, $2, $3)', [
            source,
            message.id,
            'written before the failure',
          ]);
          throw new Error('the payment service said no');
        },
      );
      await eventually(async () => (await rowOf(db, id)).attempt === 1);
      await worker.stop();
      const row = await rowOf(db, id);
      expect(row).toMatchObject({
        state: 'pending',
        attempt: 1,
        claim_token: null,
        last_error: 'Error: the payment service said no',
      });
      expect(row.scheduled_at.getTime() - before.getTime()).toBeGreaterThan(55_000);
      expect(await work(source)).toEqual([]);
      expect(logger.lines).toContainEqual({
        level: 'warn',
        message: 'The message retries.',
        fields: { messageId: id, delayMs: 60_000, error: 'Error: the payment service said no' },
      });
    });

    it('dead-letters at the ceiling with last_error, and masks secrets in it and in the log', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      await db.sql`UPDATE inbox SET attempt = 5 WHERE id = ${id}`;
      const logger = recordingLogger();
      const worker = start(adapter.source, { source, pollIntervalMs: 50, logger }, () =>
        Promise.reject(
          new Error('connect to postgres://app:hunter2@db/x failed, password=hunter2', {
            cause: new Error('Authorization: Bearer abcdef0123456789'),
          }),
        ),
      );
      await eventually(async () => (await rowOf(db, id)).state === 'dead');
      await worker.stop();
      const row = await rowOf(db, id);
      expect(row.attempt).toBe(5);
      expect(row.last_error).toContain('Error: connect to postgres://');
      expect(row.last_error).toContain('caused by Error: Authorization');
      expect(row.last_error).not.toContain('hunter2');
      expect(row.last_error).not.toContain('abcdef0123456789');
      const line = logger.lines.find((l) => l.message === 'The message reached the dead letter.');
      expect(line?.level).toBe('error');
      expect(JSON.stringify(logger.lines)).not.toContain('hunter2');
    });

    it('cuts last_error to 2000 characters', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const worker = start(
        adapter.source,
        { source, pollIntervalMs: 50, retryPolicy: () => deadLetter() },
        () => Promise.reject(new Error('x'.repeat(5000))),
      );
      await eventually(async () => (await rowOf(db, id)).state === 'dead');
      await worker.stop();
      const error = (await rowOf(db, id)).last_error!;
      expect(error).toHaveLength(2000);
      expect(error.endsWith('...[truncated]')).toBe(true);
    });

    it('rolls everything back when the completion affects no row', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const logger = recordingLogger();
      const worker = start(
        adapter.source,
        { source, pollIntervalMs: 50, logger },
        async (message, tx) => {
          await tx.query('INSERT INTO work (source, message_id, note) VALUES ($1, $2, $3)', [
            source,
            message.id,
            'lost',
          ]);
          // Another worker takes the message over (its lease ran out) before this one completes.
          await db.sql`UPDATE inbox SET claim_token = gen_random_uuid() WHERE id = ${message.id}`;
        },
      );
      await eventually(() =>
        logger.messages().includes('The completion affected no row, so the work was rolled back.'),
      );
      await worker.stop();
      expect(await work(source)).toEqual([]);
      expect((await rowOf(db, id)).state).toBe('processing');
    });

    it('never gives one message to two workers', async () => {
      const source = newSource();
      const ids = new Set<string>();
      for (let n = 0; n < 60; n++)
        ids.add(await insertPull(db, { source, aggregateId: n % 3 === 0 ? null : `a${n % 7}` }));
      const handled: string[] = [];
      const handler = async (message: InboxMessage) => {
        handled.push(message.id);
        await sleep(2);
      };
      const options = { source, pollIntervalMs: 20, batchSize: 5, maxConcurrency: 3 };
      const workers = [1, 2, 3].map(() => start(adapter.source, options, handler));
      await eventually(() => handled.length >= 60);
      await sleep(200);
      await Promise.all(workers.map((w) => w.stop()));
      expect(handled).toHaveLength(60);
      expect(new Set(handled)).toEqual(ids);
    });

    it('keeps the message across a handler that runs longer than the lease', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const handled: string[] = [];
      // Renewed every 300 ms: a loss needs a renewal 600 ms late, which a loaded machine does not do.
      const options = { source, pollIntervalMs: 30, leaseMs: 900 };
      const slow = start(adapter.source, options, async (message, _tx, signal) => {
        handled.push(`slow:${message.id}`);
        await sleep(2500);
        expect(signal.aborted).toBe(false);
      });
      await eventually(() => handled.length === 1);
      const other = start(adapter.source, options, (message) => {
        handled.push(`other:${message.id}`);
        return Promise.resolve();
      });
      await eventually(async () => (await rowOf(db, id)).state === 'processed');
      await Promise.all([slow.stop(), other.stop()]);
      expect(handled).toEqual([`slow:${id}`]);
    });

    it('cancels the handler and completes nothing when a renewal finds the lease lost', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const logger = recordingLogger();
      let aborted = false;
      const worker = start(
        adapter.source,
        { source, pollIntervalMs: 30, leaseMs: 300, logger },
        async (message, tx, signal) => {
          await tx.query('INSERT INTO work (source, message_id, note) VALUES ($1, $2, $3)', [
            source,
            message.id,
            'in the lost transaction',
          ]);
          await db.sql`UPDATE inbox SET claim_token = gen_random_uuid() WHERE id = ${message.id}`;
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
          aborted = true;
        },
      );
      await eventually(() =>
        logger.messages().includes('The lease was lost, so the work was rolled back.'),
      );
      await worker.stop();
      expect(aborted).toBe(true);
      expect(logger.messages()).toContain('The lease was lost to another worker.');
      expect(await work(source)).toEqual([]);
      expect((await rowOf(db, id)).state).toBe('processing');
    });

    it('stops claiming at once, abandons a handler past the grace, and the message returns after its lease with no attempt spent', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const logger = recordingLogger();
      const claims = countingClaims(adapter.source);
      let started = false;
      const worker = start(
        claims.source,
        { source, pollIntervalMs: 30, leaseMs: 600, shutdownGraceMs: 100, logger },
        async (_message, _tx, signal) => {
          started = true;
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        },
      );
      await eventually(() => started);
      const claimsAtStop = claims.claims();
      await insertPull(db, { source });
      await worker.stop();
      expect(claims.claims()).toBe(claimsAtStop);
      expect(logger.messages()).toContain(
        'The shutdown abandoned the message, so it spends no attempt.',
      );
      expect(await rowOf(db, id)).toMatchObject({ state: 'processing', attempt: 0 });
      const seen: InboxMessage[] = [];
      const next = start(adapter.source, { source, pollIntervalMs: 30 }, (message) => {
        seen.push(message);
        return Promise.resolve();
      });
      await eventually(async () => (await rowOf(db, id)).state === 'processed', 5_000);
      await next.stop();
      expect(seen.find((m) => m.id === id)?.attempt).toBe(0);
    });

    it('lets running handlers finish within the grace', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      let started = false;
      const worker = start(
        adapter.source,
        { source, pollIntervalMs: 30, shutdownGraceMs: 5_000 },
        async () => {
          started = true;
          await sleep(300);
        },
      );
      await eventually(() => started);
      await worker.stop();
      expect((await rowOf(db, id)).state).toBe('processed');
    });

    it('waits the poll interval after an empty claim (no polling storm)', async () => {
      const source = newSource();
      const claims = countingClaims(adapter.source);
      const worker = start(claims.source, { source, pollIntervalMs: 200 }, () => Promise.resolve());
      await sleep(1000);
      await worker.stop();
      expect(claims.claims()).toBeGreaterThanOrEqual(3);
      expect(claims.claims()).toBeLessThanOrEqual(7);
    });

    it('waits the poll interval after a failed claim', async () => {
      const logger = recordingLogger();
      let attempts = 0;
      const failing = {
        connect: () => {
          attempts++;
          return Promise.reject(new Error('no route to postgres://app:hunter2@db'));
        },
      };
      const worker = start(failing, { source: 'any', pollIntervalMs: 200, logger }, () =>
        Promise.resolve(),
      );
      await sleep(1000);
      await worker.stop();
      expect(attempts).toBeGreaterThanOrEqual(3);
      expect(attempts).toBeLessThanOrEqual(7);
      expect(logger.lines[0]).toMatchObject({ level: 'error', message: 'The claim failed.' });
      expect(JSON.stringify(logger.lines)).not.toContain('hunter2');
    });

    it('holds at most batchSize messages and runs at most min(maxConcurrency, batchSize) handlers', async () => {
      const source = newSource();
      for (let n = 0; n < 40; n++) await insertPull(db, { source });
      let running = 0;
      let most = 0;
      let mostHeld = 0;
      let handled = 0;
      const worker = start(
        adapter.source,
        { source, pollIntervalMs: 20, batchSize: 6, maxConcurrency: 10 },
        async () => {
          running++;
          most = Math.max(most, running);
          const [held] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM inbox
          WHERE source = ${source} AND state = 'processing'`;
          mostHeld = Math.max(mostHeld, held!.n);
          await sleep(15);
          running--;
          handled++;
        },
      );
      await eventually(() => handled === 40);
      await worker.stop();
      expect(most).toBe(6);
      expect(mostHeld).toBeLessThanOrEqual(6);
    });

    it('runs at most one message per aggregate at a time, while two aggregates overlap', async () => {
      const source = newSource();
      for (let n = 0; n < 6; n++) {
        await insertPull(db, { source, aggregateId: 'A', payload: { n } });
        await insertPull(db, { source, aggregateId: 'B', payload: { n } });
      }
      const inFlight = new Map<string, number>();
      let overlap = false;
      let sameAggregateTwice = false;
      const order: Record<string, number[]> = { A: [], B: [] };
      const handler = async (message: InboxMessage) => {
        const aggregate = message.aggregateId!;
        const count = (inFlight.get(aggregate) ?? 0) + 1;
        inFlight.set(aggregate, count);
        if (count > 1) sameAggregateTwice = true;
        if ((inFlight.get(aggregate === 'A' ? 'B' : 'A') ?? 0) > 0) overlap = true;
        order[aggregate]!.push((message.payload as { n: number }).n);
        await sleep(40);
        inFlight.set(aggregate, inFlight.get(aggregate)! - 1);
      };
      const options = { source, pollIntervalMs: 10, batchSize: 4, maxConcurrency: 4 };
      const workers = [
        start(adapter.source, options, handler),
        start(adapter.source, options, handler),
      ];
      await eventually(() => order.A!.length + order.B!.length === 12);
      await Promise.all(workers.map((w) => w.stop()));
      expect(sameAggregateTwice).toBe(false);
      expect(overlap).toBe(true);
      expect(order).toEqual({ A: [0, 1, 2, 3, 4, 5], B: [0, 1, 2, 3, 4, 5] });
    });

    it('lets a stale token change nothing', async () => {
      const source = newSource();
      const id = await insertPull(db, { source });
      const sql = inboxSql('postgresql');
      const [claimed] = await db.sql.unsafe<{ claim_token: string }[]>(sql.claim.text, [
        source,
        1,
        30_000,
        50,
      ]);
      const stale = randomUUID();
      const counts = [
        (await db.sql.unsafe(sql.renew.text, [30_000, id, stale])).count,
        (await db.sql.unsafe(sql.retry.text, [0, 'e', id, stale])).count,
        (await db.sql.unsafe(sql.dead.text, ['e', id, stale])).count,
        (await db.sql.unsafe(sql.complete.text, [id, stale])).count,
      ];
      expect(counts).toEqual([0, 0, 0, 0]);
      expect(await rowOf(db, id)).toMatchObject({
        state: 'processing',
        claim_token: claimed!.claim_token,
      });
      expect((await db.sql.unsafe(sql.complete.text, [id, claimed!.claim_token])).count).toBe(1);
    });
  },
);
