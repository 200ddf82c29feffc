import {
  QueueBoxError,
  type AppConfig,
  type CaptureRegistration,
  type CaptureSession,
  type CaptureSource,
  type ChangeListener,
  type ChangeStream,
  type DurableSlot,
  type LockAttempt,
  registrationFrom,
  withTimeout,
  type CaptureRegistryRow,
} from '@queuebox/core';
import postgres from 'postgres';
import { poolOptions } from '../connection/pool.js';
import { captureLockKey, captureSql } from './capture-sql.js';
import {
  captureConnectionSettings,
  captureFingerprintLines,
  captureSchema,
  type CaptureConnectionSettings,
} from './connection-settings.js';
import { openReplicationStream, type ReplicationStreamOptions } from './replication-stream.js';

export interface PostgresCaptureOptions {
  /** Stream timings (tests shorten them). */
  readonly stream?: Pick<ReplicationStreamOptions, 'statusIntervalMs' | 'silenceLimitMs'>;
}

/**
 * Capture on PostgreSQL (spec §10): each run is one session on the application's database,
 * with its credentials (the ownership lock, the registry row, the preflight, the check for a
 * durable slot), plus one replication connection with the capture credentials. Both are
 * connections of their own, beside the pool: the lock lives as long as its session, and
 * postgres.js must not recycle that session under it.
 */
export function createPostgresCaptureSource(
  config: AppConfig,
  options: PostgresCaptureOptions = {},
): CaptureSource {
  return {
    async open(): Promise<CaptureSession> {
      const settings = captureConnectionSettings(config);
      const sql = postgres({
        ...poolOptions(config.database),
        max: 1,
        idle_timeout: undefined,
        max_lifetime: null,
      });
      try {
        const [row] = await sql.unsafe<{ pid: number }[]>(captureSql.backendPid);
        return new PostgresCaptureSession(sql, String(row?.pid), config, settings, options);
      } catch (error: unknown) {
        await sql.end({ timeout: 0 }).catch(() => undefined);
        throw error;
      }
    },
  };
}

class PostgresCaptureSession implements CaptureSession {
  readonly fingerprintLines: readonly string[];
  private readonly lockKey: string;
  private locked = false;
  private stream: ChangeStream | null = null;
  /** Ends a replication connection still being opened (slot creation can wait for long transactions). */
  private readonly closing = new AbortController();
  private closed: Promise<void> | null = null;

  constructor(
    private readonly sql: postgres.Sql,
    readonly id: string,
    private readonly config: AppConfig,
    private readonly settings: CaptureConnectionSettings,
    private readonly options: PostgresCaptureOptions,
  ) {
    this.lockKey = captureLockKey(config.outbox.capture.identity);
    this.fingerprintLines = captureFingerprintLines(config, settings);
  }

  async tryLock(): Promise<LockAttempt> {
    const [row] = await this.sql.unsafe<{ held: boolean }[]>(captureSql.tryLock, [this.lockKey]);
    if (row?.held === true) {
      this.locked = true;
      return { held: true };
    }
    const [holder] = await this.sql.unsafe<{ pid: number }[]>(captureSql.lockHolder, [
      this.lockKey,
    ]);
    return { held: false, holder: holder === undefined ? null : String(holder.pid) };
  }

  async alive(timeoutMs: number): Promise<boolean> {
    try {
      const rows = await withTimeout(
        this.sql.unsafe<{ pid: number }[]>(captureSql.backendPid).execute(),
        timeoutMs,
        () => new Error('The capture session did not answer.'),
      );
      return String(rows[0]?.pid) === this.id;
    } catch {
      return false;
    }
  }

  async endStaleSession(id: string): Promise<boolean> {
    const [row] = await this.sql.unsafe<{ ended: boolean }[]>(captureSql.terminate, [Number(id)]);
    return row?.ended === true;
  }

  async registration(identity: string): Promise<CaptureRegistration | null> {
    const [row] = await this.sql.unsafe<CaptureRegistryRow[]>(captureSql.registration, [identity]);
    return registrationFrom(row);
  }

  async register(registration: CaptureRegistration): Promise<void> {
    await this.sql.unsafe(captureSql.register, [
      registration.identity,
      registration.stateId,
      registration.fingerprint,
    ]);
  }

  async preflight(): Promise<void> {
    const capture = this.config.outbox.capture;
    const [wal] = await this.sql.unsafe<{ level: string }[]>(captureSql.walLevel);
    if (wal?.level !== 'logical') {
      throw new QueueBoxError(
        'startup_failed',
        `Capture needs wal_level=logical on the database server, which runs with wal_level=${wal?.level ?? 'unknown'}. Set it (ALTER SYSTEM SET wal_level = logical) and restart PostgreSQL.`,
      );
    }
    const publication = capture.publication;
    const [found] = await this.sql.unsafe<{ pubinsert: boolean }[]>(captureSql.publication, [
      publication,
    ]);
    if (found === undefined) {
      throw new QueueBoxError(
        'startup_failed',
        `The publication ${publication} does not exist. Create it before you enable capture.`,
      );
    }
    const table = `${captureSchema(this.config)}.${this.config.database.outboxTableName}`;
    if (!found.pubinsert) {
      throw new QueueBoxError(
        'startup_failed',
        `The publication ${publication} does not publish inserts, which are what capture wakes on. Include them: ALTER PUBLICATION ${publication} SET (publish = 'insert');`,
      );
    }
    const published = await this.sql.unsafe(captureSql.publishesTable, [
      publication,
      captureSchema(this.config),
      this.config.database.outboxTableName,
    ]);
    if (published.length === 0) {
      throw new QueueBoxError(
        'startup_failed',
        `The publication ${publication} does not publish the outbox table ${table}. Add it: ALTER PUBLICATION ${publication} ADD TABLE ${table};`,
      );
    }
  }

  async durableSlots(): Promise<DurableSlot[]> {
    const rows = await this.sql.unsafe<{ slot_name: string; active: boolean; retained: string }[]>(
      captureSql.durableSlots,
      [this.config.outbox.capture.slot],
    );
    return rows.map((row) => ({
      name: row.slot_name,
      active: row.active,
      retainedBytes: Number(row.retained),
    }));
  }

  async openStream(listener: ChangeListener): Promise<ChangeStream> {
    const capture = this.config.outbox.capture;
    this.stream = await openReplicationStream({
      settings: this.settings,
      connectTimeoutMs: this.config.database.connectionTimeoutMs,
      slotPrefix: capture.slot,
      publication: capture.publication,
      schema: captureSchema(this.config),
      table: this.config.database.outboxTableName,
      listener,
      signal: this.closing.signal,
      ...this.options.stream,
    });
    return this.stream;
  }

  /** Idempotent: the capture service and its finally may both call it. */
  close(): Promise<void> {
    this.closed ??= this.end();
    return this.closed;
  }

  private async end(): Promise<void> {
    this.closing.abort();
    await this.stream?.close().catch(() => undefined);
    if (this.locked) {
      await withTimeout(
        this.sql.unsafe(captureSql.unlock, [this.lockKey]).execute(),
        2_000,
        () => new Error('unlock timed out'),
      ).catch(() => undefined);
    }
    await this.sql.end({ timeout: 1 }).catch(() => undefined);
  }
}
