/**
 * The error taxonomy. Every error QueueBox raises on purpose is a QueueBoxError with a stable
 * `code`; adapters set `retryable` from their classifier (transient or permanent, see
 * `ErrorClass`) so services can decide between a retry and a dead letter without knowing the
 * driver.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'startup_failed'
  | 'database_unavailable'
  /** A transient clash with another transaction (serialization failure, deadlock). */
  | 'database_conflict'
  /** The database refused the data itself (a constraint, invalid input): it never stores it. */
  | 'storage_rejected'
  | 'migration_failed'
  | 'schema_invalid'
  | 'provider_missing'
  | 'publish_failed'
  | 'transform_failed'
  | 'claim_lost'
  | 'auth_failed'
  | 'internal';

export interface QueueBoxErrorOptions {
  readonly cause?: unknown;
  readonly retryable?: boolean;
  /** Extra detail (an HTTP response body, say) that the sanitizer appends as ` | body: ...`. */
  readonly detail?: string;
}

export class QueueBoxError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly detail: string | undefined;

  constructor(code: ErrorCode, message: string, options: QueueBoxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'QueueBoxError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.detail = options.detail;
  }
}

/** Normalises anything thrown into an Error, so `catch (error: unknown)` has one shape. */
export function toError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error === 'string') return new Error(error);
  try {
    return new Error(JSON.stringify(error));
  } catch {
    return new Error(String(error));
  }
}

/**
 * transient: the same operation can succeed later (the connection was lost, the database is
 * busy, restarting or in a conflict with another transaction). permanent: it never will, because
 * the input itself is refused (a constraint, invalid input): a broker message that fails so is a
 * poison message, to be stored dead and acknowledged rather than redelivered for ever.
 */
export type ErrorClass = 'transient' | 'permanent';

/** What an adapter's classifier says of one driver or client error. */
export interface ErrorClassification {
  readonly errorClass: ErrorClass;
  readonly code: ErrorCode;
  /** The driver's own name for it (a SQLSTATE, a broker's reply code or error type), if any. */
  readonly driverCode: string | null;
}

/** A broker adapter's lists of its client's error codes, by what a retry can do about them. */
export interface BrokerErrorCodes {
  /** The broker refused the message itself: sent again as it is, it fails the same way. */
  readonly permanent: ReadonlySet<string>;
  /** Refused credentials or permissions: transient, since an operator can fix them. */
  readonly auth: ReadonlySet<string>;
}

/**
 * The rule every broker classifier follows, given the code its client gave the error: what was
 * classified where it arose keeps its class, a listed permanent code is permanent, a listed auth
 * code is `auth_failed`, and the rest is transient, so a retried message waits for a fix that a
 * dead one would be lost to.
 */
export function classifyBrokerError(
  error: unknown,
  driverCode: string | null,
  codes: BrokerErrorCodes,
): ErrorClassification {
  if (error instanceof QueueBoxError)
    return { errorClass: errorClassOf(error), code: error.code, driverCode: null };
  if (driverCode !== null && codes.permanent.has(driverCode))
    return { errorClass: 'permanent', code: 'publish_failed', driverCode };
  if (driverCode !== null && codes.auth.has(driverCode))
    return { errorClass: 'transient', code: 'auth_failed', driverCode };
  return { errorClass: 'transient', code: 'publish_failed', driverCode };
}

/**
 * A broker client's error as a QueueBoxError, as `storeError` makes a database's: code and
 * `retryable` from the broker's classification, the client's error as its cause. `message` is
 * the caller's text, kept as it is, since it is what the row's `last_error` and the logs show.
 */
export function brokerError(
  cause: unknown,
  message: string,
  classification: ErrorClassification,
): QueueBoxError {
  return new QueueBoxError(classification.code, message, {
    cause,
    retryable: classification.errorClass === 'transient',
  });
}

/**
 * The class of anything thrown. A QueueBoxError says so through `retryable`; anything else was
 * not classified where it arose and counts as transient, because retrying an unknown failure
 * loses nothing while dead-lettering it could throw away a good message.
 */
export function errorClassOf(error: unknown): ErrorClass {
  if (error instanceof QueueBoxError) return error.retryable ? 'transient' : 'permanent';
  return 'transient';
}
