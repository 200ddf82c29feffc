import { randomUUID } from 'node:crypto';
import { skipTitle } from '@queuebox/testing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deadLetter,
  inboxSql,
  retryAfter,
  type InboxConnectionSource,
  type InboxHandler,
  type InboxMessage,
  type InboxOptions,
} from '../../src/index.js';
import { countingClaims, eventually, recordingLogger, sleep, start } from '../support.js';
import { RENAMED, type WorkerHarness, type WorkerTarget } from './harness.js';

/**
 * The library contract of spec §9.3 (its contract test list), each rule on a real database
 * through one adapter: the same tests on PostgreSQL and on SQL Server. Every test uses a source
 * of its own, so the tests share one database without seeing each other.
 */
/** A handler that fails once its claim is gone, and the line the worker logs for it. */
interface LostClaimCase {
  readonly options: Partial<InboxOptions>;
  readonly handler: InboxHandler;
  readonly line: string;
}

export function pullWorkerContract(target: WorkerTarget): void {
  const title = `the pull worker contract: ${target.label}`;
  describe.skipIf(Boolean(target.skip))(skipTitle(title, target.skip), () => {
    let h: WorkerHarness;
    const newSource = () => `src_${randomUUID().slice(0, 8)}`;
    /** Starts a worker on the harness's dialect. */
    const run = (
      connections: InboxConnectionSource,
      options: InboxOptions,
      handler: InboxHandler,
    ) => start(connections, { dialect: h.dialect, ...options }, handler);
    const sql = () => inboxSql(h.dialect);
    const write =
      (source: string, message: InboxMessage, note: string) => (tx: Parameters<InboxHandler>[1]) =>
        tx.query(h.insertWork, [source, message.id, note]);

    beforeAll(async () => {
      h = await target.open();
    }, 120_000);
    afterAll(async () => {
      await h?.close();
    });

    describe('the rules of §9.3', () => {
      it('delivers every field, and the handler writes commit together with the completion', async () => {
        const source = newSource();
        const id = await h.insertPull({
          source,
          aggregateId: 'order-1',
          eventType: 'order.created',
          payload: { total: 12.5, items: ['a'] },
          headers: { 'x-tenant': 'acme' },
          correlationId: 'corr-1',
        });
        const seen: InboxMessage[] = [];
        let token: string | null = null;
        const worker = run(h.connections, { source, pollIntervalMs: 50 }, async (message, tx) => {
          seen.push(message);
          token = (await h.rowOf(message.id)).claim_token;
          await write(source, message, 'done')(tx);
        });
        await eventually(async () => (await h.rowOf(id)).state === 'processed');
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
        expect(token).not.toBeNull();
        expect(JSON.stringify(seen[0]).toLowerCase()).not.toContain(token!);
        expect(await h.work(source)).toEqual([{ message_id: id, note: 'done' }]);
        const row = await h.rowOf(id);
        expect(row).toMatchObject({ state: 'processed', claim_token: null });
        expect(row.processed_at).not.toBeNull();
      });

      it('rolls back what a failing handler wrote, then retries with a later schedule and attempt + 1', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const before = (await h.rowOf(id)).scheduled_at;
        const logger = recordingLogger();
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 50, logger, retryPolicy: () => retryAfter(60_000) },
          async (message, tx) => {
            await write(source, message, 'written before the failure')(tx);
            throw new Error('the payment service said no');
          },
        );
        await eventually(async () => (await h.rowOf(id)).attempt === 1);
        await worker.stop();
        const row = await h.rowOf(id);
        expect(row).toMatchObject({
          state: 'pending',
          attempt: 1,
          claim_token: null,
          last_error: 'Error: the payment service said no',
        });
        expect(row.scheduled_at.getTime() - before.getTime()).toBeGreaterThan(55_000);
        expect(await h.work(source)).toEqual([]);
        expect(logger.lines).toContainEqual({
          level: 'warn',
          message: 'The message retries.',
          fields: { messageId: id, delayMs: 60_000, error: 'Error: the payment service said no' },
        });
      });

      it('dead-letters at the ceiling with last_error, and masks secrets in it and in the log', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        await h.setAttempt(id, 5);
        const logger = recordingLogger();
        const worker = run(h.connections, { source, pollIntervalMs: 50, logger }, () =>
          Promise.reject(
            new Error('connect to postgres://app:hunter2@db/x failed, password=hunter2', {
              cause: new Error('Authorization: Bearer abcdef0123456789'),
            }),
          ),
        );
        await eventually(async () => (await h.rowOf(id)).state === 'dead');
        await worker.stop();
        const row = await h.rowOf(id);
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
        const id = await h.insertPull({ source });
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 50, retryPolicy: () => deadLetter() },
          () => Promise.reject(new Error('x'.repeat(5000))),
        );
        await eventually(async () => (await h.rowOf(id)).state === 'dead');
        await worker.stop();
        const error = (await h.rowOf(id)).last_error!;
        expect(error).toHaveLength(2000);
        expect(error.endsWith('...[truncated]')).toBe(true);
      });

      it('rolls everything back when the completion affects no row', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 50, logger },
          async (message, tx) => {
            await write(source, message, 'lost')(tx);
            // Another worker takes the message over (its lease ran out) before this one completes.
            await h.stealClaim(message.id);
          },
        );
        await eventually(() =>
          logger
            .messages()
            .includes('The completion affected no row, so the work was rolled back.'),
        );
        await worker.stop();
        expect(await h.work(source)).toEqual([]);
        expect((await h.rowOf(id)).state).toBe('processing');
      });

      it('never gives one message to two workers', async () => {
        const source = newSource();
        const ids = new Set<string>();
        for (let n = 0; n < 60; n++)
          ids.add(await h.insertPull({ source, aggregateId: n % 3 === 0 ? null : `a${n % 7}` }));
        const handled: string[] = [];
        const handler = async (message: InboxMessage) => {
          handled.push(message.id);
          await sleep(2);
        };
        const options = { source, pollIntervalMs: 20, batchSize: 5, maxConcurrency: 3 };
        const workers = [1, 2, 3].map(() => run(h.connections, options, handler));
        await eventually(() => handled.length >= 60, 30_000);
        await sleep(200);
        await Promise.all(workers.map((w) => w.stop()));
        expect(handled).toHaveLength(60);
        expect(new Set(handled)).toEqual(ids);
      });

      it('keeps the message across a handler that runs longer than the lease', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const handled: string[] = [];
        // Renewed every 300 ms: a loss needs a renewal 600 ms late, which a loaded machine does not do.
        const options = { source, pollIntervalMs: 30, leaseMs: 900 };
        const slow = run(h.connections, options, async (message, _tx, signal) => {
          handled.push(`slow:${message.id}`);
          await sleep(2500);
          expect(signal.aborted).toBe(false);
        });
        await eventually(() => handled.length === 1);
        const other = run(h.connections, options, (message) => {
          handled.push(`other:${message.id}`);
          return Promise.resolve();
        });
        await eventually(async () => (await h.rowOf(id)).state === 'processed');
        await Promise.all([slow.stop(), other.stop()]);
        expect(handled).toEqual([`slow:${id}`]);
      });

      it('cancels the handler and completes nothing when a renewal finds the lease lost', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        let aborted = false;
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 30, leaseMs: 300, logger },
          async (message, tx, signal) => {
            await write(source, message, 'in the lost transaction')(tx);
            await h.stealClaim(message.id);
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
        expect(await h.work(source)).toEqual([]);
        expect((await h.rowOf(id)).state).toBe('processing');
      });

      it('stops claiming at once, abandons a handler past the grace, and the message returns after its lease with no attempt spent', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        const claims = countingClaims(h.connections, sql().claim.text);
        let started = false;
        const worker = run(
          claims.source,
          { source, pollIntervalMs: 30, leaseMs: 600, shutdownGraceMs: 100, logger },
          async (_message, _tx, signal) => {
            started = true;
            await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
          },
        );
        await eventually(() => started);
        await h.insertPull({ source });
        // Read right before the stop: the loop polls every 30 ms until then, and the insert
        // above can take longer than that on a loaded machine.
        const claimsAtStop = claims.claims();
        await worker.stop();
        expect(claims.claims()).toBe(claimsAtStop);
        expect(logger.messages()).toContain(
          'The shutdown abandoned the message, so it spends no attempt.',
        );
        expect(await h.rowOf(id)).toMatchObject({ state: 'processing', attempt: 0 });
        const seen: InboxMessage[] = [];
        const next = run(h.connections, { source, pollIntervalMs: 30 }, (message) => {
          seen.push(message);
          return Promise.resolve();
        });
        await eventually(async () => (await h.rowOf(id)).state === 'processed', 5_000);
        await next.stop();
        expect(seen.find((m) => m.id === id)?.attempt).toBe(0);
      });

      it('returns from run() past the grace when a handler never returns, committing nothing and spending no attempt', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        let started = false;
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 30, leaseMs: 600, shutdownGraceMs: 200, logger },
          async (message, tx) => {
            await write(source, message, 'left behind')(tx);
            started = true;
            // Ignores its signal and never settles.
            await new Promise<never>(() => undefined);
          },
        );
        await eventually(() => started);
        const stopped = await Promise.race([
          worker.stop().then(() => 'returned' as const),
          sleep(10_000).then(() => 'still running' as const),
        ]);
        expect(stopped).toBe('returned');
        expect(logger.messages()).toContain(
          'The shutdown abandoned the message, so it spends no attempt.',
        );
        expect(await h.rowOf(id)).toMatchObject({ state: 'processing', attempt: 0 });
        expect(await h.work(source)).toEqual([]);
        // The lease expires and the message comes back, its attempt unspent; the left-behind
        // handler's write never commits, on its own connection or on a reused one.
        const seen: InboxMessage[] = [];
        const next = run(h.connections, { source, pollIntervalMs: 30 }, async (message, tx) => {
          seen.push(message);
          await write(source, message, 'second')(tx);
        });
        await eventually(async () => (await h.rowOf(id)).state === 'processed', 5_000);
        await next.stop();
        expect(seen.find((m) => m.id === id)?.attempt).toBe(0);
        expect((await h.work(source)).map((w) => w.note)).toEqual(['second']);
      });

      it('lets running handlers finish within the grace', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        let started = false;
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 30, shutdownGraceMs: 5_000 },
          async () => {
            started = true;
            await sleep(300);
          },
        );
        await eventually(() => started);
        await worker.stop();
        expect((await h.rowOf(id)).state).toBe('processed');
      });

      it('waits the poll interval after an empty claim (no polling storm)', async () => {
        const source = newSource();
        const claims = countingClaims(h.connections, sql().claim.text);
        const worker = run(claims.source, { source, pollIntervalMs: 200 }, () => Promise.resolve());
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
        const worker = run(failing, { source: 'any', pollIntervalMs: 200, logger }, () =>
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
        for (let n = 0; n < 40; n++) await h.insertPull({ source });
        let running = 0;
        let most = 0;
        let mostHeld = 0;
        let handled = 0;
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 20, batchSize: 6, maxConcurrency: 10 },
          async () => {
            running++;
            most = Math.max(most, running);
            mostHeld = Math.max(mostHeld, await h.processing(source));
            await sleep(15);
            running--;
            handled++;
          },
        );
        await eventually(() => handled === 40, 30_000);
        await worker.stop();
        expect(most).toBe(6);
        expect(mostHeld).toBeLessThanOrEqual(6);
      });

      it('runs at most one message per aggregate at a time, while two aggregates overlap', async () => {
        const source = newSource();
        for (let n = 0; n < 6; n++) {
          await h.insertPull({ source, aggregateId: 'A', payload: { n } });
          await h.insertPull({ source, aggregateId: 'B', payload: { n } });
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
          run(h.connections, options, handler),
          run(h.connections, options, handler),
        ];
        await eventually(() => order.A!.length + order.B!.length === 12);
        await Promise.all(workers.map((w) => w.stop()));
        expect(sameAggregateTwice).toBe(false);
        expect(overlap).toBe(true);
        expect(order).toEqual({ A: [0, 1, 2, 3, 4, 5], B: [0, 1, 2, 3, 4, 5] });
      });

      it('lets a stale token change nothing', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const s = sql();
        const c = await h.connections.connect();
        try {
          const claimed = await c.query(s.claim.text, [source, 1, 30_000, 50]);
          const token = String(claimed.rows[0]!.claim_token).toLowerCase();
          const stale = randomUUID();
          const counts = [
            (await c.query(s.renew.text, [30_000, id, stale])).rowCount,
            (await c.query(s.retry.text, [0, 'e', id, stale])).rowCount,
            (await c.query(s.dead.text, ['e', id, stale])).rowCount,
            (await c.query(s.complete.text, [id, stale])).rowCount,
          ];
          expect(counts).toEqual([0, 0, 0, 0]);
          expect(await h.rowOf(id)).toMatchObject({ state: 'processing', claim_token: token });
          expect((await c.query(s.complete.text, [id, token])).rowCount).toBe(1);
        } finally {
          c.release();
        }
      });
    });

    describe('when things go wrong', () => {
      /** The harness's connections, whose queries fail when `fails(text)` says so. */
      const failing = (fails: (text: string) => boolean): InboxConnectionSource => ({
        async connect() {
          const connection = await h.connections.connect();
          return {
            ...connection,
            query: (text, params) =>
              fails(text)
                ? Promise.reject(new Error('connection reset, password=hunter2'))
                : connection.query(text, params),
          };
        },
      });

      it('logs a failed renewal as a warning and keeps the message', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        let renewals = 0;
        const renew = sql().renew.text;
        const worker = run(
          failing((text) => text === renew && ++renewals === 1),
          { source, pollIntervalMs: 30, leaseMs: 1500, logger },
          // Renewed every 500 ms: the first renewal fails, the second (at 1 s) keeps the lease.
          () => new Promise((resolve) => setTimeout(resolve, 1200)),
        );
        await eventually(async () => (await h.rowOf(id)).state === 'processed');
        await worker.stop();
        const line = logger.lines.find((l) => l.message === 'The renewal failed.');
        expect(line?.level).toBe('warn');
        expect(JSON.stringify(line)).not.toContain('hunter2');
        expect(logger.messages()).not.toContain('The lease was lost to another worker.');
      });

      it('abandons the message when the completion itself fails, leaving it to its lease', async () => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        const complete = sql().complete.text;
        const worker = run(
          failing((text) => text === complete),
          { source, pollIntervalMs: 30, logger },
          () => Promise.resolve(),
        );
        await eventually(() => logger.messages().includes('The message was abandoned.'));
        await worker.stop();
        const line = logger.lines.find((l) => l.message === 'The message was abandoned.');
        expect(line).toMatchObject({ level: 'error', fields: { messageId: id } });
        expect(JSON.stringify(line)).not.toContain('hunter2');
        expect(await h.rowOf(id)).toMatchObject({ state: 'processing', attempt: 0 });
      });

      const lostClaimCases: [string, LostClaimCase][] = [
        [
          'changes nothing when a failure comes after the claim was lost',
          {
            options: {},
            handler: async (message) => {
              await h.stealClaim(message.id);
              throw new Error('failed after someone else took it');
            },
            line: 'The failure changed nothing, because the claim was lost.',
          },
        ],
        [
          'writes nothing when the handler fails after the renewal found the lease lost',
          {
            options: { leaseMs: 300 },
            handler: async (message, _tx, signal) => {
              await h.stealClaim(message.id);
              await new Promise<void>((resolve) =>
                signal.addEventListener('abort', () => resolve()),
              );
              throw signal.reason;
            },
            line: 'The lease was lost, so nothing was written.',
          },
        ],
      ];
      it.each(lostClaimCases)('%s', async (_behaviour, { options, handler, line }) => {
        const source = newSource();
        const id = await h.insertPull({ source });
        const logger = recordingLogger();
        const worker = run(
          h.connections,
          { source, pollIntervalMs: 30, ...options, logger },
          handler,
        );
        await eventually(() => logger.messages().includes(line));
        await worker.stop();
        expect(await h.rowOf(id)).toMatchObject({
          state: 'processing',
          attempt: 0,
          last_error: null,
        });
      });
    });

    describe('mapped names and aggregate order', () => {
      it('claims, retries and completes on a renamed table and columns', async () => {
        const id = randomUUID();
        await h.insertRenamed(id);
        const seen: InboxMessage[] = [];
        let failed = false;
        const worker = run(
          h.connections,
          {
            source: 'orders',
            pollIntervalMs: 30,
            schema: RENAMED,
            retryPolicy: () => retryAfter(0),
          },
          (message) => {
            seen.push(message);
            if (failed) return Promise.resolve();
            failed = true;
            return Promise.reject(new Error('first time fails'));
          },
        );
        await eventually(async () => (await h.renamedRow(id)).state === 'processed');
        await worker.stop();
        expect(seen.map((m) => m.attempt)).toEqual([0, 1]);
        expect(seen[1]).toEqual({
          id,
          source: 'orders',
          idempotencyKey: 'k1',
          aggregateId: 'agg',
          eventType: 'type',
          payload: { n: 1 },
          headers: { h: 'v' },
          attempt: 1,
          correlationId: 'corr',
        });
        expect(await h.renamedRow(id)).toMatchObject({ last_error: 'Error: first time fails' });
      });

      /** Message 0 of aggregate A fails once and waits 400 ms for its retry; message 1 is due. */
      async function orderWith(strictAggregateOrder: boolean): Promise<number[]> {
        const source = newSource();
        await h.insertPull({ source, aggregateId: 'A', payload: { n: 0 } });
        await h.insertPull({ source, aggregateId: 'A', payload: { n: 1 } });
        const order: number[] = [];
        const options = {
          source,
          pollIntervalMs: 20,
          strictAggregateOrder,
          retryPolicy: () => retryAfter(400),
        };
        const worker = run(h.connections, options, (message) => {
          const n = (message.payload as { n: number }).n;
          order.push(n);
          if (n === 0 && message.attempt === 0) return Promise.reject(new Error('retry me'));
          return Promise.resolve();
        });
        await eventually(() => order.length === 3);
        await worker.stop();
        return order;
      }

      it('lets a due later message pass one waiting for its retry (the reference rule, the default)', async () => {
        expect(await orderWith(false)).toEqual([0, 1, 0]);
      });

      it('holds the later message back behind the retry with strictAggregateOrder', async () => {
        expect(await orderWith(true)).toEqual([0, 0, 1]);
      });
    });
  });
}
