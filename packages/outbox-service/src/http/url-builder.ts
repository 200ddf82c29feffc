/**
 * `baseUrl` joined with `path` (spec §6.1): both split on `/`, empty segments dropped, each
 * segment appended. So `http://h/api/` + `/events/` and `http://h/api` + `events` both give
 * `http://h/api/events`, and the default path `/` leaves the base as it is. The query of the
 * base URL is kept. Dot segments are refused by the configuration validator before this runs.
 */
export function joinUrl(baseUrl: string, path: string): URL {
  const url = new URL(baseUrl);
  const segments = [...url.pathname.split('/'), ...path.split('/')].filter((s) => s !== '');
  // The WHATWG parser percent-encodes what a path may not hold (a space, say) and keeps
  // escapes the operator already wrote.
  url.pathname = `/${segments.join('/')}`;
  return url;
}

/** What an undici Pool (bound to the origin) is asked for: path plus query. */
export function requestTarget(url: URL): string {
  return `${url.pathname}${url.search}`;
}
