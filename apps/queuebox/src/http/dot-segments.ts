/**
 * Whether an HTTP request target names a dot segment (`.` or `..`) once percent-decoded.
 *
 * The Node adapter turns the raw target into a WHATWG URL before any route sees it, and that
 * parser resolves `..`, `.%2e`, `%2e.` and `%2E%2e` (any case) as well as `\` as a separator:
 * `/inbox/%2e%2e/metrics` reached `/metrics`. An ingress that forwards only `/inbox/*` then
 * forwarded the operator routes too. Such a target is answered 404 on every port, before
 * routing, from the raw target (`IncomingMessage.url`), which nothing has normalized yet.
 *
 * Only the characters that make a dot segment are decoded (`%2e`, and `%2f` and `%5c` for the
 * separators), so a malformed escape elsewhere cannot hide one. A query is not part of the path.
 */
export function hasDotSegment(target: string): boolean {
  let path = target;
  const query = path.search(/[?#]/);
  if (query >= 0) path = path.slice(0, query);
  // Absolute form (`GET http://host/inbox/.. HTTP/1.1`): the path starts after the authority.
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/\\]*/i.exec(path);
  if (absolute !== null) path = path.slice(absolute[0].length);
  const decoded = path.replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
  return decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..');
}

/** The answer to such a target: hono's own 404, byte for byte. */
export function dotSegmentNotFound(): Response {
  return new Response('404 Not Found', {
    status: 404,
    headers: { 'Content-Type': 'text/plain; charset=UTF-8' },
  });
}
