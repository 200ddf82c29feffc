import type { AdminConfig } from '@queuebox/core';
import { createAuthValidator, readRequestBody, type AuthValidator } from '@queuebox/inbox-service';
import type { Context } from 'hono';

/**
 * The shared front of both admin routes (spec §11.6): read the body under
 * `admin.maxPayloadBytes` FIRST (so an oversized unauthenticated body gets 413 and HMAC sees the
 * exact bytes), then authenticate, then parse. Each route shapes its own error bodies.
 */
export type AdminRequest =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly status: 400 | 401 | 413; readonly error: string };

export const ADMIN_GUARD =
  "The admin routes are enabled with no authentication. Set 'admin.auth' to a bearer token, an API key, or an HMAC signature. Set 'admin.insecure' to true only for a local test, or set 'admin.enabled' to false.";

export function adminAuthenticator(admin: AdminConfig): AuthValidator | null {
  // Defence in depth: configuration validation refuses this too.
  if (admin.auth === null && !admin.insecure) throw new Error(ADMIN_GUARD);
  return admin.auth === null ? null : createAuthValidator(admin.auth, undefined, 'admin.auth');
}

export async function readAdminRequest(
  c: Context,
  admin: AdminConfig,
  auth: AuthValidator | null,
): Promise<AdminRequest> {
  const body = await readRequestBody(c, admin.maxPayloadBytes);
  if (!body.ok)
    return { ok: false, status: 413, error: `Request body exceeds ${admin.maxPayloadBytes} bytes` };
  if (auth !== null) {
    const verdict = auth.validate((name) => c.req.header(name), body.bytes);
    if (!verdict.ok) return { ok: false, status: 401, error: verdict.reason };
  }
  try {
    return { ok: true, body: JSON.parse(new TextDecoder().decode(body.bytes)) as unknown };
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : 'the body is not JSON';
    return { ok: false, status: 400, error: `Invalid request: ${reason}` };
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The front of a read (GET) admin route: the same validator on an empty body, so a bearer token
 * or API key works as on the writes, and an HMAC signs the empty body.
 */
export function authorizeRead(
  c: Context,
  auth: AuthValidator | null,
): { readonly ok: true } | { readonly ok: false; readonly error: string } {
  if (auth === null) return { ok: true };
  const verdict = auth.validate((name) => c.req.header(name), new Uint8Array(0));
  return verdict.ok ? { ok: true } : { ok: false, error: verdict.reason };
}
