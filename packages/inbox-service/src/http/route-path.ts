/**
 * The route of an HTTP source: `inbox.basePath` + `path` (`/inbox` + `/stripe` → `/inbox/stripe`).
 * Joined by segments, as the reference's nested routing did, so `/inbox/` + `stripe` gives the
 * same route and never `//`.
 */
export function sourceRoutePath(basePath: string, path: string): string {
  const segments = [basePath, path]
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}
