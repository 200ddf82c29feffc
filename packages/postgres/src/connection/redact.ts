import { sanitize, sanitizeError } from '@queuebox/core';

/**
 * Driver error texts as this package logs them and puts them into error messages: core's
 * sanitizer (spec §16.4: key/value credentials, URL user-info, bearer tokens, length bound),
 * plus two things only this package knows to do. It masks the configured credentials wherever
 * they appear (a driver may echo a password without a key in front of it), and it reduces every
 * URL to its scheme and host, because a start failure must never print a full URL (database
 * name and parameters included).
 */
const URL_PATTERN = /\b([A-Za-z][A-Za-z0-9+.-]*):\/\/([^\s'"<>]*)/g;

export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 0) out = out.split(secret).join('***');
  }
  out = out.replace(
    URL_PATTERN,
    (_match, scheme: string, rest: string) => `${scheme}://${hostOf(rest)}`,
  );
  return sanitize(out);
}

/** The sanitized `Type: message | caused by ...` text of anything thrown. */
export function redactReason(error: unknown, secrets: readonly string[] = []): string {
  return redactText(sanitizeError(withCodeAsMessage(error)), secrets);
}

/**
 * Node reports some connection failures (every address of a host refused) as an error with an
 * empty message and only a `code`; the code is the useful part.
 */
function withCodeAsMessage(error: unknown): unknown {
  if (!(error instanceof Error) || error.message !== '') return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  const described = new Error(code);
  described.name = error.name;
  return described;
}

/** `user:pass@host:5432/db?x=y` → `host:5432`. */
function hostOf(rest: string): string {
  const authority = rest.split(/[/?#;]/, 1)[0] ?? '';
  const at = authority.lastIndexOf('@');
  return at >= 0 ? authority.slice(at + 1) : authority;
}
