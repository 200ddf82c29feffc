import {
  errorClassOf,
  QueueBoxError,
  SOCKET_ERROR_CODES,
  storeError,
  type StoreErrorClassification,
  type ErrorCode,
} from '@queuebox/core';

/**
 * postgres.js errors in core's taxonomy: transient (the connection was lost or refused, the
 * server is busy, shutting down, or the statement clashed with another transaction or ran out of
 * time) or permanent (the server refused the data itself: a constraint or invalid input, so the
 * same row can never be stored). A broker source acknowledges a permanent failure as a poison
 * message and requeues a transient one, so permanent is only ever said of SQLSTATE classes that
 * are about the row's values: an error whose cause is unknown (a bug, a missing table, a
 * permission) counts as transient, because a requeued message waits for the fix and a dead one
 * is lost to it.
 */
export interface PostgresErrorClassification extends StoreErrorClassification {
  /** The SQLSTATE, or the socket / postgres.js code (`ECONNRESET`, `CONNECTION_CLOSED`). */
  readonly driverCode: string | null;
}

/** Socket errors of Node and the connection errors postgres.js raises itself. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  ...SOCKET_ERROR_CODES,
  'EHOSTDOWN',
  'ENETDOWN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** SQLSTATEs that a retry can get past (besides the whole classes 08 and 53 below). */
const TRANSIENT_SQLSTATES: Readonly<Record<string, ErrorCode>> = {
  '40001': 'database_conflict', // serialization_failure
  '40P01': 'database_conflict', // deadlock_detected
  '40003': 'database_unavailable', // statement_completion_unknown
  '55P03': 'database_unavailable', // lock_not_available (lock_timeout)
  '55006': 'database_conflict', // object_in_use
  '57014': 'database_unavailable', // query_canceled (statement_timeout, a cancel)
  '57P01': 'database_unavailable', // admin_shutdown
  '57P02': 'database_unavailable', // crash_shutdown
  '57P03': 'database_unavailable', // cannot_connect_now (starting up, recovering)
  '25006': 'database_unavailable', // read_only_sql_transaction (a standby after a failover)
};

const SQLSTATE = /^[0-9A-Z]{5}$/;

export function classifyPostgresError(error: unknown): PostgresErrorClassification {
  // Already classified where it arose (a timeout of this package, say).
  if (error instanceof QueueBoxError)
    return { errorClass: errorClassOf(error), code: error.code, driverCode: null };
  const driverCode = driverCodeOf(error);
  if (driverCode === null) return { errorClass: 'transient', code: 'internal', driverCode };
  if (CONNECTION_CODES.has(driverCode))
    return { errorClass: 'transient', code: 'database_unavailable', driverCode };
  if (!SQLSTATE.test(driverCode)) return { errorClass: 'transient', code: 'internal', driverCode };
  const listed = TRANSIENT_SQLSTATES[driverCode];
  if (listed !== undefined) return { errorClass: 'transient', code: listed, driverCode };
  switch (driverCode.slice(0, 2)) {
    case '08': // connection_exception
    case '53': // insufficient_resources: too_many_connections, out_of_memory, disk_full
      return { errorClass: 'transient', code: 'database_unavailable', driverCode };
    case '22': // data_exception: 22P02, 22001, 22021, 22P05, 22003, ...
    case '23': // integrity_constraint_violation: 23505, 23502, 23503, 23514, ...
      return { errorClass: 'permanent', code: 'storage_rejected', driverCode };
    default:
      // 40002 is a deferred constraint found at COMMIT: the same refusal as class 23.
      if (driverCode === '40002')
        return { errorClass: 'permanent', code: 'storage_rejected', driverCode };
      return { errorClass: 'transient', code: 'internal', driverCode };
  }
}

/**
 * The driver error as a QueueBoxError: code and `retryable` from the classification, the
 * driver error as its cause (the sanitizer prints the chain; a PostgresError's `detail` too).
 */
export function postgresError(error: unknown, action: string): QueueBoxError {
  if (error instanceof QueueBoxError) return error;
  return storeError(error, action, classifyPostgresError(error));
}

/**
 * A PostgresError carries its SQLSTATE in `code`, as do the errors postgres.js raises itself
 * (`57014` for a cancel, `CONNECTION_CLOSED`) and Node's socket errors. Node reports a refused
 * connection to every address of a host as an AggregateError whose parts hold the code.
 */
function driverCodeOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  // postgres.js 4 fails the statements of a lost connection with CONNECTION_CLOSED and the
  // socket's own error (ECONNRESET, ...) as its cause; 3 gave the socket's error itself. The
  // socket's code says more (a reset, not an orderly close), so it is the one reported.
  if (code === 'CONNECTION_CLOSED') {
    const cause = driverCodeOf((error as { cause?: unknown }).cause);
    if (cause !== null && CONNECTION_CODES.has(cause)) return cause;
  }
  if (typeof code === 'string' && code !== '') return code;
  if (error instanceof AggregateError) {
    for (const part of error.errors) {
      const inner = driverCodeOf(part);
      if (inner !== null) return inner;
    }
  }
  return null;
}
