import { sanitize, sanitizeError } from '@queuebox/core';

/**
 * Driver error texts as this package logs them: core's sanitizer (spec §16.4), plus the
 * configured credentials masked wherever they appear (tedious echoes the login name, and a
 * driver may echo a password without a key in front of it).
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 0) out = out.split(secret).join('***');
  }
  return sanitize(out);
}

/** The sanitized `Type: message | caused by ...` text of anything thrown. */
export function redactReason(error: unknown, secrets: readonly string[] = []): string {
  return redactText(sanitizeError(withCodeAsMessage(error)), secrets);
}

/**
 * tedious wraps a refused socket in a ConnectionError whose message names the server and port,
 * while Node reports some failures (every address refused) with an empty message and only a
 * `code`; the code is then the useful part.
 */
function withCodeAsMessage(error: unknown): unknown {
  if (!(error instanceof Error) || error.message !== '') return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  const described = new Error(code);
  described.name = error.name;
  return described;
}
