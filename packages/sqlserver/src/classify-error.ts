import {
  errorClassOf,
  QueueBoxError,
  SOCKET_ERROR_CODES,
  storeError,
  type StoreErrorClassification,
  type ErrorCode,
} from '@queuebox/core';

/**
 * tedious errors in core's taxonomy, with the rule of the PostgreSQL provider: permanent only
 * for server messages about the row's own values (a constraint, a conversion, a truncation), so
 * a broker message that fails so is stored dead; everything else, an unknown cause included, is
 * transient, because a requeued message waits for the fix and a dead one is lost to it.
 *
 * `backoff` marks the failures a caller must not retry at once: Msg 51000 is the pull claim's
 * "sp_getapplock did not acquire the per-source claim lock" after its 10 s wait (spec §9.2), and
 * 1222 / 1205 are lock waits and deadlocks. Retrying those immediately queues one more waiter on
 * the same lock; the caller waits (its poll interval or a backoff) and runs the whole call again,
 * and never marks a message failed or dead because of them.
 */
export interface SqlServerErrorClassification extends StoreErrorClassification {
  /** The server's message number (`51000`, `2627`) or tedious's / Node's code (`ESOCKET`). */
  readonly driverCode: string | null;
  /** Retry only after a wait: the failure was a lock that others hold. */
  readonly backoff: boolean;
}

/** THROW 51000 of the pull claim (and of this package's claims) when the app lock timed out. */
export const APP_LOCK_NOT_ACQUIRED = 51000;

/** tedious's ConnectionError / RequestError codes and Node's socket codes: the link is gone. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ESOCKET',
  'ECLOSE',
  'ECONNCLOSED',
  'ETIMEOUT',
  'EINSTLOOKUP',
  'EINVALIDSTATE',
  ...SOCKET_ERROR_CODES,
]);

/** Server messages a retry gets past, and whether the retry must wait first. */
const TRANSIENT_NUMBERS: Readonly<Record<number, { code: ErrorCode; backoff: boolean }>> = {
  [APP_LOCK_NOT_ACQUIRED]: { code: 'database_conflict', backoff: true },
  1205: { code: 'database_conflict', backoff: true }, // chosen as deadlock victim
  1222: { code: 'database_conflict', backoff: true }, // lock request time out period exceeded
  3960: { code: 'database_conflict', backoff: false }, // snapshot isolation update conflict
  701: { code: 'database_unavailable', backoff: true }, // insufficient system memory
  8645: { code: 'database_unavailable', backoff: true }, // memory grant wait timed out
  1204: { code: 'database_unavailable', backoff: true }, // out of lock resources
  4060: { code: 'database_unavailable', backoff: true }, // cannot open database (restoring, failover)
  976: { code: 'database_unavailable', backoff: true }, // AG secondary not readable
  983: { code: 'database_unavailable', backoff: true }, // AG database role changing
  40197: { code: 'database_unavailable', backoff: true }, // Azure: service error, retry
  40501: { code: 'database_unavailable', backoff: true }, // Azure: service busy
  40613: { code: 'database_unavailable', backoff: true }, // Azure: database not available
  10928: { code: 'database_unavailable', backoff: true }, // resource limit reached
  10929: { code: 'database_unavailable', backoff: true }, // minimum guarantee not met
  49918: { code: 'database_unavailable', backoff: true },
  49919: { code: 'database_unavailable', backoff: true },
  49920: { code: 'database_unavailable', backoff: true },
  233: { code: 'database_unavailable', backoff: false }, // no process on the other end of the pipe
  10053: { code: 'database_unavailable', backoff: false }, // connection aborted
  10054: { code: 'database_unavailable', backoff: false }, // connection reset
  10060: { code: 'database_unavailable', backoff: false }, // connection timed out
};

/** Server messages refusing the values themselves: the same row is refused every time. */
const PERMANENT_NUMBERS: ReadonlySet<number> = new Set([
  2627, // violation of PRIMARY KEY / UNIQUE constraint
  2601, // duplicate key row in a unique index
  515, // cannot insert NULL
  547, // conflict with a CHECK / FOREIGN KEY constraint
  8152, // string or binary data would be truncated (before 2019)
  2628, // string or binary data would be truncated in table ... column ...
  245, // conversion failed (varchar to int)
  241, // conversion failed (string to date/time)
  242, // out-of-range date/time value
  8114, // error converting data type
  8115, // arithmetic overflow converting
  220, // arithmetic overflow for data type
  8169, // conversion failed (string to uniqueidentifier)
  13609, // JSON text is not properly formatted
  9420, // XML parsing: illegal character
  8023, // RPC parameter invalid (a value the TDS type cannot carry)
]);

export function classifySqlServerError(error: unknown): SqlServerErrorClassification {
  if (error instanceof QueueBoxError)
    return { errorClass: errorClassOf(error), code: error.code, driverCode: null, backoff: false };
  const number = serverNumberOf(error);
  if (number !== null) {
    const driverCode = String(number);
    const transient = TRANSIENT_NUMBERS[number];
    if (transient) return { errorClass: 'transient', driverCode, ...transient };
    if (PERMANENT_NUMBERS.has(number))
      return { errorClass: 'permanent', code: 'storage_rejected', driverCode, backoff: false };
    return { errorClass: 'transient', code: 'internal', driverCode, backoff: false };
  }
  const driverCode = codeOf(error);
  if (driverCode !== null && CONNECTION_CODES.has(driverCode))
    return { errorClass: 'transient', code: 'database_unavailable', driverCode, backoff: false };
  return { errorClass: 'transient', code: 'internal', driverCode, backoff: false };
}

/**
 * The driver error as a QueueBoxError: code and `retryable` from the classification, the
 * driver error as its cause (the sanitizer prints the chain).
 */
export function sqlServerError(error: unknown, action: string): QueueBoxError {
  if (error instanceof QueueBoxError) return error;
  const classification = classifySqlServerError(error);
  const { driverCode } = classification;
  const shown = driverCode !== null && /^\d+$/.test(driverCode) ? `Msg ${driverCode}` : driverCode;
  return storeError(error, action, classification, shown);
}

/**
 * tedious's RequestError for a server message carries the message number in `number`; an
 * error raised inside a batch may arrive wrapped (`cause`) or, for a batch with several
 * messages, as an AggregateError of them: the first numbered part decides.
 */
function serverNumberOf(error: unknown, depth = 0): number | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const number = (error as { number?: unknown }).number;
  if (typeof number === 'number' && Number.isInteger(number) && number > 0) return number;
  if (error instanceof AggregateError) {
    for (const part of error.errors) {
      const inner = serverNumberOf(part, depth + 1);
      if (inner !== null) return inner;
    }
  }
  return serverNumberOf((error as { cause?: unknown }).cause, depth + 1);
}

function codeOf(error: unknown, depth = 0): string | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code !== '' && code !== 'EREQUEST') return code;
  if (error instanceof AggregateError) {
    for (const part of error.errors) {
      const inner = codeOf(part, depth + 1);
      if (inner !== null) return inner;
    }
  }
  return codeOf((error as { cause?: unknown }).cause, depth + 1);
}
