import {
  registrationFrom,
  withTimeout,
  type CaptureRegistryRow,
  QueueBoxError,
  type AppConfig,
  type CaptureRegistration,
  type CaptureSession,
  type CaptureSource,
  type ChangeListener,
  type ChangeStream,
  type LockAttempt,
} from '@queuebox/core';
import type { Connection } from 'tedious';
import { connectionConfig } from '../connection/connection-options.js';
import { openConnection } from '../connection/pool.js';
import type { Session } from '../connection/session.js';
import { captureSql } from './capture-sql.js';
import { openChangeTablePoller } from './change-table-poller.js';
import {
  captureConnectionConfig,
  captureFingerprintLines,
  captureSchema,
} from './connection-settings.js';
import { lsnOf, ZERO_LSN } from './lsn-cursor.js';
import { preflightTarget, type CaptureInstanceRow, type CaptureTarget } from './preflight.js';

export interface SqlServerCaptureOptions {
  /** Pause between two polls of the change table (tests shorten it). */
  readonly pollIntervalMs?: number;
}

/** Debezium's SQL Server connector polled every 500 ms by default; so does this feed. */
const POLL_INTERVAL_MS = 500;

interface Opened {
  readonly connection: Connection;
  readonly session: Session;
}

/**
 * Capture on SQL Server (spec §10, `sqlserver-cdc`): each run is one session on the application's
 * database with its credentials (the ownership lock, the registry row, the preflight), plus one
 * reader connection with the capture credentials that polls the CDC change table. Both are
 * connections of their own, beside the pool: a session-owned app lock lives as long as its
 * connection, which the pool would lend to others.
 */
export function createSqlServerCaptureSource(
  config: AppConfig,
  options: SqlServerCaptureOptions = {},
): CaptureSource {
  return {
    async open(): Promise<CaptureSession> {
      // The reference's settings errors come before any I/O.
      const fingerprintLines = captureFingerprintLines(config);
      const opened = await openConnection(connectionConfig(config.database));
      try {
        const { rows } = await opened.session.run<{ id: string }>(captureSql.sessionId);
        return new SqlServerCaptureSession(
          opened,
          String(rows[0]?.id),
          config,
          fingerprintLines,
          options,
        );
      } catch (error: unknown) {
        opened.connection.close();
        throw error;
      }
    },
  };
}

class SqlServerCaptureSession implements CaptureSession {
  private locked = false;
  private target: CaptureTarget | null = null;
  private reader: Opened | null = null;
  private stream: ChangeStream | null = null;
  private closed: Promise<void> | null = null;

  constructor(
    private readonly lock: Opened,
    readonly id: string,
    private readonly config: AppConfig,
    readonly fingerprintLines: readonly string[],
    private readonly options: SqlServerCaptureOptions,
  ) {}

  private get identity(): string {
    return this.config.outbox.capture.identity;
  }

  async tryLock(): Promise<LockAttempt> {
    const { rows } = await this.lock.session.run<{ result: number }>(
      captureSql.tryLock(this.identity),
    );
    if (Number(rows[0]?.result) >= 0) {
      this.locked = true;
      return { held: true };
    }
    try {
      const holder = await this.lock.session.run<{ id: string }>(
        captureSql.lockHolder(this.identity),
      );
      return { held: false, holder: holder.rows[0]?.id ?? null };
    } catch {
      // Without VIEW SERVER STATE the server does not show other sessions' locks.
      return { held: false, holder: null };
    }
  }

  async alive(timeoutMs: number): Promise<boolean> {
    try {
      const { rows } = await withTimeout(
        this.lock.session.run<{ id: string; mode: string }>(captureSql.alive(this.identity)),
        timeoutMs,
        () => new Error('The capture session did not answer.'),
      );
      return rows[0]?.id === this.id && rows[0].mode === 'Exclusive';
    } catch {
      return false;
    }
  }

  async endStaleSession(id: string): Promise<boolean> {
    const at = id.indexOf('@');
    const { rows } = await this.lock.session.run<{ ended: number }>(
      captureSql.endSession(Number(id.slice(0, at)), id.slice(at + 1)),
    );
    return rows.length > 0;
  }

  async registration(identity: string): Promise<CaptureRegistration | null> {
    const { rows } = await this.lock.session.run<CaptureRegistryRow>(
      captureSql.registration(identity),
    );
    return registrationFrom(rows[0]);
  }

  async register(registration: CaptureRegistration): Promise<void> {
    await this.lock.session.run(
      captureSql.register(registration.identity, registration.stateId, registration.fingerprint),
    );
  }

  async preflight(): Promise<void> {
    const enabled = await this.lock.session.run(captureSql.databaseEnabled);
    const instances =
      enabled.rows.length === 0
        ? []
        : (
            await this.lock.session.run<CaptureInstanceRow>(
              captureSql.captureInstances(
                captureSchema(this.config),
                this.config.database.outboxTableName,
              ),
            )
          ).rows;
    this.target = preflightTarget(enabled.rows.length > 0, instances, captureSchema(this.config));
  }

  async openStream(listener: ChangeListener): Promise<ChangeStream> {
    const target = this.target;
    if (target === null) {
      throw new QueueBoxError('startup_failed', 'Capture opened its stream before the preflight.');
    }
    const opened = await openConnection(captureConnectionConfig(this.config));
    this.reader = opened;
    const { rows } = await opened.session.run<{ lsn: string | null }>(captureSql.maxLsn);
    const reader = opened.session;
    const poller = openChangeTablePoller({
      run: (statement) => reader.run(statement),
      captureInstance: target.captureInstance,
      changeTable: target.changeTable,
      // Nothing captured yet in this database: every real LSN is above zero.
      start: lsnOf(rows[0]?.lsn) ?? ZERO_LSN,
      listener,
      intervalMs: this.options.pollIntervalMs ?? POLL_INTERVAL_MS,
    });
    // The capture service closes a feed and opens another on the same session while the
    // poller is busy: each feed takes its reader connection with it.
    this.stream = {
      ended: poller.ended,
      close: async () => {
        // The poller stops first (synchronously), so the poll the closed connection cuts
        // short ends the feed as a close, not as a failure.
        const closing = poller.close();
        opened.connection.close();
        await closing;
      },
    };
    return this.stream;
  }

  /** Idempotent: the capture service and its finally may both call it. */
  close(): Promise<void> {
    this.closed ??= this.end();
    return this.closed;
  }

  private async end(): Promise<void> {
    // Closing the reader first fails a poll in flight at once instead of after its timeout.
    this.reader?.connection.close();
    await this.stream?.close().catch(() => undefined);
    if (this.locked) {
      await withTimeout(
        this.lock.session.run(captureSql.unlock(this.identity)),
        2_000,
        () => new Error('unlock timed out'),
      ).catch(() => undefined);
    }
    this.lock.connection.close();
  }
}
