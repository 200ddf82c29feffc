import { QueueBoxError, type ErrorClass, type ErrorCode } from '../errors.js';

/** A dialect classifier's verdict on a driver error, in core's taxonomy. */
export interface StoreErrorClassification {
  readonly errorClass: ErrorClass;
  readonly code: ErrorCode;
  /** The driver's or the server's code for the failure, where it has one. */
  readonly driverCode: string | null;
  /** Retry only after a wait: the failure was a lock that others hold. */
  readonly backoff?: boolean;
}

/**
 * The driver error as a QueueBoxError: code and `retryable` from the dialect's classification,
 * the driver error as its cause (the sanitizer prints the chain). `shownCode` is the code as the
 * dialect writes it into the text.
 */
export function storeError(
  cause: unknown,
  action: string,
  classification: StoreErrorClassification,
  shownCode: string | null = classification.driverCode,
): QueueBoxError {
  const { errorClass, code, backoff } = classification;
  const because = shownCode === null ? '' : ` (${shownCode})`;
  const message =
    errorClass === 'permanent'
      ? `The database refused to ${action}${because}: the data can never be stored as it is.`
      : backoff === true
        ? `The database could not ${action}${because}: a lock is held elsewhere; a retry after a wait can succeed.`
        : `The database could not ${action}${because}; a retry can succeed.`;
  return new QueueBoxError(code, message, { cause, retryable: errorClass === 'transient' });
}
