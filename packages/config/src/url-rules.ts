/**
 * Outbound URL rules (spec §6.1, §16.2) and the AMQP URI check. Messages print a URL only with
 * its password masked, and the AMQP check prints no URL at all (spec §7.6).
 */
import { maskUrl } from './mask-url.js';

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

/** Whether `url` is an `amqp://` or `amqps://` URI with a host. */
export function isAmqpUri(url: string): boolean {
  const trimmed = url.trim();
  if (!/^amqps?:\/\//i.test(trimmed)) return false;
  try {
    return new URL(trimmed).hostname !== '';
  } catch {
    return false;
  }
}
