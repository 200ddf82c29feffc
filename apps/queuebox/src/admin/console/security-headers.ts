import type { MiddlewareHandler } from 'hono';

/**
 * What every `/admin` answer carries, the console page and the JSON alike: the page loads only
 * its own script and style and talks only to its own origin, no other site may frame it
 * (clickjacking a discard button), no answer is cached (rows carry payloads) or sniffed.
 */
export const ADMIN_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export const adminSecurityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(ADMIN_SECURITY_HEADERS))
    c.res.headers.set(name, value);
};
