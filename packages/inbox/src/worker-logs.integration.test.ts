import { randomUUID } from 'node:crypto';
import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  insertPull,
  openAdapter,
  recordingLogger,
  rowOf,
  start,
  type Adapter,
} from '../test/support.js';
import type { InboxConnectionSource } from './index.js';

const pg = await requireService('postgres', 'inbox client: the failure paths and their log texts');

/** The worker's own failures and lost claims, each with the reference's log text. */
describe.skipIf(!pg.available)('the pull worker when things go wrong', () => {
  let db: FreshDatabase;
  let adapter: Adapter;
  const newSource = () => `src_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    db = await createFreshDatabase(pg.available ? pg.url : '');
    await runMigrations(db.sql, { logger: silentLogger });
    adapter = openAdapter('fromPg', db.url);
  });
  afterAll(async () => {
    await adapter?.close();
    await db?.drop();
  });

  /** Connections whose queries fail when `fails(text)` says so. */
  const failing = (fails: (text: string) => boolean): InboxConnectionSource => ({
    async connect() {
      const connection = await adapter.source.connect();
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
    const id = await insertPull(db, { source });
    const logger = recordingLogger();
    let renewals = 0;
    const worker = start(
      failing((text) => text.includes('SET "lease_expires_at"') && ++renewals === 1),
      { source, pollIntervalMs: 30, leaseMs: 1500, logger },
      // Renewed every 500 ms: the first renewal fails, the second (at 1 s) keeps the lease.
      () => new Promise((resolve) => setTimeout(resolve, 1200)),
    );
    await eventually(async () => (await rowOf(db, id)).state === 'processed');
    await worker.stop();
    const line = logger.lines.find((l) => l.message === 'The renewal failed.');
    expect(line?.level).toBe('warn');
    expect(JSON.stringify(line)).not.toContain('hunter2');
    expect(logger.messages()).not.toContain('The lease was lost to another worker.');
  });

  it('abandons the message when the completion itself fails, leaving it to its lease', async () => {
    const source = newSource();
    const id = await insertPull(db, { source });
    const logger = recordingLogger();
    const worker = start(
      failing((text) => text.includes(`SET "state" = 'processed'`)),
      { source, pollIntervalMs: 30, logger },
      () => Promise.resolve(),
    );
    await eventually(() => logger.messages().includes('The message was abandoned.'));
    await worker.stop();
    const line = logger.lines.find((l) => l.message === 'The message was abandoned.');
    expect(line).toMatchObject({ level: 'error', fields: { messageId: id } });
    expect(JSON.stringify(line)).not.toContain('hunter2');
    expect(await rowOf(db, id)).toMatchObject({ state: 'processing', attempt: 0 });
  });

  it('changes nothing when a failure comes after the claim was lost', async () => {
    const source = newSource();
    const id = await insertPull(db, { source });
    const logger = recordingLogger();
    const worker = start(
      adapter.source,
      { source, pollIntervalMs: 30, logger },
      async (message) => {
        await db.sql`UPDATE inbox SET claim_token = gen_random_uuid() WHERE id = ${message.id}`;
        throw new Error('failed after someone else took it');
      },
    );
    await eventually(() =>
      logger.messages().includes('The failure changed nothing, because the claim was lost.'),
    );
    await worker.stop();
    expect(await rowOf(db, id)).toMatchObject({
      state: 'processing',
      attempt: 0,
      last_error: null,
    });
  });

  it('writes nothing when the handler fails after the renewal found the lease lost', async () => {
    const source = newSource();
    const id = await insertPull(db, { source });
    const logger = recordingLogger();
    const worker = start(
      adapter.source,
      { source, pollIntervalMs: 30, leaseMs: 300, logger },
      async (message, _tx, signal) => {
        await db.sql`UPDATE inbox SET claim_token = gen_random_uuid() WHERE id = ${message.id}`;
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        throw signal.reason;
      },
    );
    await eventually(() =>
      logger.messages().includes('The lease was lost, so nothing was written.'),
    );
    await worker.stop();
    expect(await rowOf(db, id)).toMatchObject({
      state: 'processing',
      attempt: 0,
      last_error: null,
    });
  });
});
