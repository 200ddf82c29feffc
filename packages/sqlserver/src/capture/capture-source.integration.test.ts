import type { CaptureSession, ChangeKind } from '@queuebox/core';
import { silentLogger } from '@queuebox/core';
import { requireService } from '@queuebox/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureConfigWith } from '../../test/capture-support.js';
import {
  createFreshSqlServer,
  type FreshSqlServer,
} from '../../test/contracts/sqlserver-database.js';
import { runMigrations } from '../migrator/migrate.js';
import { statement } from '../sql/statement.js';
import { createSqlServerCaptureSource } from './capture-session.js';
import { CDC_NOT_ENABLED_ON_DATABASE, CDC_NOT_ENABLED_ON_TABLE } from './preflight.js';

const ss = await requireService('sqlserver', 'sqlserver: sqlserver-cdc capture source');

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The sqlserver-cdc source on a real SQL Server with its Agent running (the testcontainers image
 * sets MSSQL_AGENT_ENABLED): the preflight texts in order, the ownership lock and its holder, the
 * registry row, and the feed's classification of changes as the capture job writes them.
 */
describe.skipIf(!ss.available)('SQL Server capture source (sqlserver-cdc)', () => {
  let db: FreshSqlServer;
  const sessions: CaptureSession[] = [];
  const exec = (text: string) => db.pool.withSession((s) => s.run(statement(text)));
  const source = (identity = 'queuebox') =>
    createSqlServerCaptureSource(
      captureConfigWith(db.config, {
        identity,
        connection: { encrypt: false, trustServerCertificate: true },
      }),
      { pollIntervalMs: 100 },
    );
  const open = async (identity?: string) => {
    const session = await source(identity).open();
    sessions.push(session);
    return session;
  };

  beforeAll(async () => {
    db = await createFreshSqlServer(ss.available ? ss.url : '');
    await runMigrations(db.pool, { logger: silentLogger });
  }, 120_000);
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.close()));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('says what is missing, database first, then the outbox table', async () => {
    const session = await open();
    await expect(session.preflight()).rejects.toThrow(CDC_NOT_ENABLED_ON_DATABASE);
    await exec('EXEC sys.sp_cdc_enable_db');
    await expect(session.preflight()).rejects.toThrow(CDC_NOT_ENABLED_ON_TABLE);
    await exec(
      "EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'outbox', @role_name = NULL, @supports_net_changes = 0",
    );
    // The capture job scans the log every second instead of every five.
    await exec("EXEC sys.sp_cdc_change_job @job_type = N'capture', @pollinginterval = 1");
    await exec("EXEC sys.sp_cdc_stop_job @job_type = N'capture'");
    await exec("EXEC sys.sp_cdc_start_job @job_type = N'capture'");
    await expect(session.preflight()).resolves.toBeUndefined();
  }, 60_000);

  it('takes the lock of the identity once; a second session sees the first as the holder', async () => {
    const first = await open();
    expect(await first.tryLock()).toEqual({ held: true });
    const second = await open();
    expect(await second.tryLock()).toEqual({ held: false, holder: first.id });
    expect(await (await open('other_identity')).tryLock()).toEqual({ held: true });
    expect(await first.alive(2_000)).toBe(true);
    expect(await second.alive(2_000)).toBe(false);
    await first.close();
    expect(await second.tryLock()).toEqual({ held: true });
  });

  it('registers the identity once and keeps a row that is there', async () => {
    const session = await open();
    expect(await session.registration('queuebox')).toBeNull();
    await session.register({
      identity: 'queuebox',
      stateId: 'a'.repeat(36),
      fingerprint: 'f'.repeat(64),
    });
    await session.register({
      identity: 'queuebox',
      stateId: 'b'.repeat(36),
      fingerprint: '0'.repeat(64),
    });
    expect(await session.registration('queuebox')).toEqual({
      identity: 'queuebox',
      stateId: 'a'.repeat(36),
      fingerprint: 'f'.repeat(64),
    });
  });

  it('reports inserts, updates and deletes of the outbox as the capture job writes them', async () => {
    const session = await open();
    expect(await session.tryLock()).toEqual({ held: true });
    await session.preflight();
    const kinds: ChangeKind[] = [];
    const stream = await session.openStream({ onChange: (kind) => kinds.push(kind) });
    await exec(
      "INSERT INTO outbox (id, topic, payload) VALUES (NEWID(), 'order.created', '{\"a\":1}')",
    );
    await waitFor(() => kinds.includes('insert'));
    await exec("UPDATE outbox SET state = 'sent' WHERE topic = 'order.created'");
    await exec("DELETE FROM outbox WHERE topic = 'order.created'");
    await waitFor(() => kinds.includes('update') && kinds.includes('delete'));
    expect(kinds.filter((kind) => kind === 'insert')).toHaveLength(1);
    await stream.close();
    await expect(stream.ended).resolves.toBeUndefined();
  }, 60_000);
});
