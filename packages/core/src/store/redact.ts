import { sanitize, sanitizeError } from '../sanitizer.js';

/**
 * Driver error texts as the database adapters log them and put them into error messages: the
 * sanitizer (spec §16.4: key/value credentials, URL user-info, bearer tokens, length bound),
 * plus two things only an adapter knows to do. It masks the configured credentials wherever
 * they appear (a driver may echo a password or the login name without a key in front of it),
 * and it reduces every URL to its scheme and host, because a start failure must never print a
 * full URL (database name and parameters included). One rule for every dialect, so an operator
 * reads the same redaction whatever the database.
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
 * empty message and only a `code`; the code is then the useful part.
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
