/**
 * Masks the password of a URL before it is printed (spec §12.1, §16.3): the user-info password of
 * `scheme://user:pass@host` and `password=` / `pwd=` parameters of JDBC URLs. The user name and
 * the host stay, so the operator still sees where QueueBox connects.
 */
const MASK = '***';

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
