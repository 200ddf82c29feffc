import {
  SANITIZED_MAX_LENGTH,
  sanitize as redact,
  sanitizeError as redactError,
} from '@queuebox/core';

/**
 * QueueBox's own error sanitizer (spec §16.4, the shared redaction corpus), under the names of
 * the reference client: every text bound for a log line or `last_error` goes through it.
 */
export const MAX_ERROR_LENGTH = SANITIZED_MAX_LENGTH;

export function sanitize(text: string): string {
  return redact(text);
}

/** `Name: message | caused by ...` (five levels at most), redacted; undefined stays undefined. */
export function sanitizeError(error: unknown): string | undefined {
  return error === undefined ? undefined : redactError(error);
}
