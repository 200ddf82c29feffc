/**
 * What a store contract needs from a database besides the adapter under test: the rows as they
 * are (to set up a state and to see what the adapter wrote) and the database clock. Each dialect
 * implements these once (PostgreSQL in packages/postgres/test/contracts, SQL Server beside its
 * adapter), on whatever table and column names the run was created with, and returns rows under
 * the port's field names, so the contracts never name a column or write SQL.
 */
import type { Clock, Consumption, InboxState, OutboxState } from '@queuebox/core';

/** One outbox row as stored; JSON columns parsed, timestamps as Date. */
export interface OutboxRow {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly state: OutboxState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly headers: unknown;
  readonly payload: unknown;
  readonly aggregateType: string | null;
  readonly scheduledAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly claimedAt: Date | null;
  readonly claimToken: string | null;
  readonly leaseExpiresAt: Date | null;
  readonly lastError: string | null;
  readonly sequence: bigint;
}

/** One inbox row as stored; JSON columns parsed, timestamps as Date. */
export interface InboxRow {
  readonly id: string;
  readonly source: string;
  readonly idempotencyKey: string;
  readonly aggregateId: string | null;
  readonly eventType: string | null;
  readonly payload: unknown;
  readonly headers: unknown;
  readonly correlationId: string | null;
  readonly consumption: Consumption;
  readonly state: InboxState;
  readonly createdAt: Date;
  readonly processedAt: Date | null;
  readonly scheduledAt: Date;
  readonly attempt: number;
  readonly lastError: string | null;
  readonly claimedAt: Date | null;
  readonly claimToken: string | null;
  readonly leaseExpiresAt: Date | null;
}

/** A row written past the adapter, with the table's defaults for everything not given. */
export interface RawOutboxInsert {
  readonly topic?: string;
  readonly key?: string | null;
  readonly state?: OutboxState;
  readonly scheduledAt?: Date;
}

/** Reads and writes the outbox table directly. */
export interface OutboxProbe {
  /** Deletes every outbox row. */
  clear(): Promise<void>;
  /** Every outbox row, in sequence order. */
  outboxRows(): Promise<OutboxRow[]>;
  /** Inserts in array order with the table's defaults (payload `{"n":1}`); returns the ids. */
  insertOutbox(rows: readonly RawOutboxInsert[]): Promise<string[]>;
  /** Inserts one pending row whose payload is this JSON text, as the dialect's JSON type takes it. */
  insertOutboxPayloadText(topic: string, json: string): Promise<string>;
  /** The row's payload exactly as the database returns it as text. */
  outboxPayloadText(id: string): Promise<string>;
  setOutboxState(id: string, state: OutboxState): Promise<void>;
  /** Puts the row's lease one second in the past on the database clock. */
  expireOutboxLease(id: string): Promise<void>;
  nullOutboxLease(id: string): Promise<void>;
  /** Sets the row's `created_at` to the database clock minus `seconds`. */
  ageOutboxRow(id: string, seconds: number): Promise<void>;
  /** The database clock, as the adapter's "DB now" reads it. */
  dbNow(): Promise<Date>;
  /**
   * Runs `during` while another transaction holds the row's lock (as a claim or an UPDATE
   * would), then ends that transaction.
   */
  withOutboxRowLocked(id: string, during: () => Promise<void>): Promise<void>;
  /**
   * Runs `during` while another transaction has set the row's state and not yet committed, then
   * commits it.
   */
  withUncommittedOutboxState(
    id: string,
    state: OutboxState,
    during: () => Promise<void>,
  ): Promise<void>;
}

/** Reads and writes the inbox table (and reads the outbox the relay writes into). */
export interface InboxProbe {
  /** Deletes every inbox and outbox row. */
  clear(): Promise<void>;
  /** Every inbox row, in (scheduled_at, created_at, id) order. */
  inboxRows(): Promise<InboxRow[]>;
  /** Every outbox row, in sequence order. */
  outboxRows(): Promise<OutboxRow[]>;
  /**
   * Makes the row `processing` with `claimed_at` = DB now and `lease_expires_at` = DB now +
   * `leaseMs` (negative: already expired; null: no lease).
   */
  setInboxProcessing(id: string, leaseMs: number | null): Promise<void>;
  /** Sets only the state. */
  setInboxState(id: string, state: InboxState): Promise<void>;
  /** Puts the row's lease one second in the past on the database clock. */
  expireInboxLease(id: string): Promise<void>;
  dbNow(): Promise<Date>;
  /** Runs `during` while another transaction holds the row's lock, then rolls it back. */
  withInboxRowLocked(id: string, during: () => Promise<void>): Promise<void>;
}

/**
 * A second store on its own connections: another replica. Concurrency cases run several at once;
 * each is closed by the contract.
 */
export interface Replica<T> {
  readonly store: T;
  close(): Promise<void>;
}

/** A fresh database (or schema) with the tables of one run, and the adapter built on it. */
export interface StoreHarness<Store, Probe> {
  /** The adapter under test on the harness's own pool, on the given app clock. */
  store(clock: Clock): Store;
  /** The adapter on connections of its own (a second replica). */
  replica(clock: Clock): Promise<Replica<Store>>;
  readonly probe: Probe;
  /** Drops what `open` created. */
  drop(): Promise<void>;
}

/** How a contract is run against one dialect and one table layout. */
export interface ContractTarget<Harness> {
  /** Shown in the describe block, e.g. `PostgreSQL, renamed tables`. */
  readonly label: string;
  /** When set, the suite is skipped with this reason in its title (the service is missing). */
  readonly skip?: string | false;
  /** Creates the database and its tables; called once per suite. */
  open(): Promise<Harness>;
}

/** The describe title of a run, naming why it was skipped. */
export function skipTitle(title: string, skip: string | false | undefined): string {
  return skip ? `${title} (skipped: ${skip})` : title;
}
