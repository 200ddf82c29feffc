import type { InboxConnectionSource, InboxSchema, SqlDialect } from '../../src/index.js';

/**
 * What the pull worker contract needs from one database and one adapter: the adapter's
 * connections, and a probe that writes and reads rows the way QueueBox stores them (spec §7.4).
 * Ids and tokens come back in lower case on both dialects.
 */
export interface PullRow {
  readonly source?: string;
  readonly aggregateId?: string | null;
  readonly eventType?: string | null;
  readonly payload?: unknown;
  readonly payloadJson?: string;
  readonly headers?: Record<string, string>;
  readonly correlationId?: string | null;
  readonly delayMs?: number;
}

export interface InboxRowState {
  id: string;
  state: string;
  attempt: number;
  last_error: string | null;
  claim_token: string | null;
  scheduled_at: Date;
  processed_at: Date | null;
}

export interface WorkRow {
  message_id: string;
  note: string;
}

export interface WorkerHarness {
  readonly dialect: SqlDialect;
  /** The adapter under test, on the harness's database. */
  readonly connections: InboxConnectionSource;
  /** The handler's own statement, in the dialect's parameter style: (source, message_id, note). */
  readonly insertWork: string;
  /** Inserts one due (or delayed) pull row; created_at strictly in insertion order. */
  insertPull(row?: PullRow): Promise<string>;
  rowOf(id: string): Promise<InboxRowState>;
  /** The work table's rows of one source, by note. */
  work(source: string): Promise<WorkRow[]>;
  setAttempt(id: string, attempt: number): Promise<void>;
  /** Another worker takes the message over: a new claim token. */
  stealClaim(id: string): Promise<void>;
  processing(source: string): Promise<number>;
  /** The renamed layout of RENAMED, with one row (`orders`, key k1) of the given id. */
  insertRenamed(id: string): Promise<void>;
  renamedRow(id: string): Promise<{ state: string; last_error: string | null }>;
  close(): Promise<void>;
}

export interface WorkerTarget {
  readonly label: string;
  /** A reason when the database is missing: the suite is skipped and says why. */
  readonly skip: string | false;
  open(): Promise<WorkerHarness>;
}

/** Every name mapped (spec §3.6), for the mapped-names rule. */
export const RENAMED: InboxSchema = {
  table: 'app_inbox',
  id: 'm_id',
  source: 'm_source',
  idempotencyKey: 'm_key',
  aggregateId: 'm_aggregate',
  eventType: 'm_type',
  payload: 'm_body',
  headers: 'm_headers',
  correlationId: 'm_correlation',
  consumption: 'm_consumption',
  state: 'm_state',
  scheduledAt: 'm_scheduled_at',
  createdAt: 'm_created_at',
  claimToken: 'm_claim_token',
  claimedAt: 'm_claimed_at',
  leaseExpiresAt: 'm_lease_expires_at',
  processedAt: 'm_processed_at',
  attempt: 'm_attempt',
  lastError: 'm_last_error',
};
