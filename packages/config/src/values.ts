/**
 * Value formats shared by several rules (spec §12.1): durations, SQL identifiers, and URLs:
 * masked before they are printed (spec §12.1, §16.3), and the outbound URL rules (spec §6.1,
 * §16.2). Messages print a URL only with its password masked (a broker's own URI check, in its
 * package, prints none at all).
 */
import { SQL_IDENTIFIER_PATTERN } from '@queuebox/core';

const DURATION = /^(\d+)([smhd])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest `initialDelay`: 2^31−1 seconds (spec §7.1). */
export const MAX_INITIAL_DELAY_SECONDS = 2_147_483_647;

/** `<whole number><s|m|h|d>` → milliseconds; undefined for anything else (`30`, `-5s`, `1.5h`). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

export const DURATION_HINT = 'write a whole number followed by s, m, h or d, such as 30s';

/** Table and column names are interpolated into SQL (quoted as well), so they must be plain identifiers. */
export const SQL_IDENTIFIER = SQL_IDENTIFIER_PATTERN;

export const isBlank = (text: string): boolean => text.trim() === '';

const MASK = '***';

/**
 * The password of `scheme://user:pass@host` and the `password=` / `pwd=` parameters of JDBC URLs
 * masked; the user name and the host stay, so the operator still sees where QueueBox connects.
 */
export function maskUrl(url: string): string {
  return maskParameters(maskUserInfo(url));
}

function maskUserInfo(url: string): string {
  const schemeEnd = url.indexOf('://');
  if (schemeEnd < 0) return url;
  const start = schemeEnd + 3;
  const queryAt = url.slice(start).search(/[?#;]/);
  const head = queryAt < 0 ? url.slice(start) : url.slice(start, start + queryAt);
  // The last `@` ends the user-info: a password may hold an unencoded `@` or `/`.
  const at = head.lastIndexOf('@');
  if (at < 0) return url;
  const userInfo = head.slice(0, at);
  const colon = userInfo.indexOf(':');
  const slash = userInfo.indexOf('/');
  // `https://host/users/me@example.com`: the `@` is in the path, there is no user-info.
  if (slash >= 0 && (colon < 0 || slash < colon)) return url;
  if (colon < 0) return url;
  return `${url.slice(0, start)}${userInfo.slice(0, colon)}:${MASK}@${url.slice(start + at + 1)}`;
}

function maskParameters(url: string): string {
  return url.replace(/([?&;](?:password|pwd)=)[^&;]*/gi, `$1${MASK}`);
}

/**
 * The problem with an HTTP destination `baseUrl` or OAuth2 `tokenUrl`, or undefined. `credentialHint`
 * tells the operator where a credential belongs instead of the URL.
 */
export function httpUrlProblem(url: string, credentialHint: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed === '') return 'must not be blank';
  const shown = maskUrl(trimmed);
  // WHATWG URL would read `http:host` as `http://host/`; the rule wants an absolute URL as written.
  if (!/^https?:\/\//i.test(trimmed)) return `'${shown}' must be an absolute http or https URL`;
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return `'${shown}' is not a valid URL`;
  }
  if (parsed.hostname === '') return `'${shown}' must carry a host`;
  if (parsed.username !== '' || parsed.password !== '') {
    return `must not carry a user name or a password, because a credential in a URL prints in clear text; ${credentialHint}`;
  }
  return undefined;
}

/** A `.` or `..` segment changes the target once the server resolves it (spec §6.1). */
export function hasDotSegment(path: string): boolean {
  return path.split('/').some((segment) => {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // A malformed escape is not a dot segment.
    }
    return decoded === '.' || decoded === '..';
  });
}
