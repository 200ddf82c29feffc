import type { AdminConfig, Logger, OutboxStore, ReplayFilter } from '@queuebox/core';
import type { AuthValidator } from '@queuebox/inbox-service';
import type { Hono } from 'hono';
import { isObject, readAdminRequest } from './admin-request.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReplayDeps {
  readonly admin: AdminConfig;
  readonly auth: AuthValidator | null;
  readonly store: OutboxStore;
  /** The real router's first-match answer: which destination a topic goes to. */
  readonly destinationOf: (topic: string) => string | null;
  readonly logger: Logger;
}

/**
 * `POST /admin/replay` (spec §11.6): moves `sent` and `dead` outbox rows back to `pending`. The
 * state filter is in the store's SQL and cannot be widened from here.
 */
export function replayRoute(app: Hono, deps: ReplayDeps): void {
  app.post('/admin/replay', async (c) => {
    const request = await readAdminRequest(c, deps.admin, deps.auth);
    if (!request.ok) return c.json({ error: request.error }, request.status);
    const parsed = parseReplay(request.body);
    if (parsed === 'empty') return c.json({ error: 'A replay needs at least one filter.' }, 400);
    if ('invalid' in parsed) return c.json({ error: `Invalid request: ${parsed.invalid}` }, 400);

    const filter = await resolveTopics(parsed, deps);
    const moved = filter === null ? 0 : await deps.store.replay(filter);
    deps.logger.info(`Replay moved ${moved} row(s). Filter: ${describe(parsed)}`);
    return c.json({ moved }, 200);
  });
}

interface ReplayRequest {
  readonly ids: readonly string[] | null;
  readonly topic: string | null;
  readonly topics: readonly string[] | null;
  readonly destination: string | null;
  readonly createdAfter: Date | null;
  readonly createdBefore: Date | null;
}

class InvalidRequest extends Error {}

type ParsedReplay = ReplayRequest | { readonly invalid: string } | 'empty';

/** The request, `'empty'` when it sets no filter at all, or the reason it is invalid. */
function parseReplay(body: unknown): ParsedReplay {
  if (!isObject(body)) return { invalid: 'the body must be a JSON object' };
  let request: ReplayRequest;
  try {
    const ids = stringList(body.ids, 'ids');
    const badId = ids?.find((id) => !UUID.test(id));
    if (badId !== undefined) throw new InvalidRequest(`'${badId}' in 'ids' is not a UUID`);
    request = {
      ids,
      topics: stringList(body.topics, 'topics'),
      topic: optionalString(body.topic, 'topic'),
      destination: optionalString(body.destination, 'destination'),
      createdAfter: optionalInstant(body.createdAfter, 'createdAfter'),
      createdBefore: optionalInstant(body.createdBefore, 'createdBefore'),
    };
  } catch (error: unknown) {
    if (error instanceof InvalidRequest) return { invalid: error.message };
    throw error;
  }
  const empty =
    (request.ids === null || request.ids.length === 0) &&
    (request.topics === null || request.topics.length === 0) &&
    !request.topic &&
    !request.destination &&
    request.createdAfter === null &&
    request.createdBefore === null;
  return empty ? 'empty' : request;
}

function stringList(value: unknown, name: string): readonly string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new InvalidRequest(`'${name}' must be a list of strings`);
  }
  return value as string[];
}

function optionalString(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new InvalidRequest(`'${name}' must be a string`);
  return value;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/;

function optionalInstant(value: unknown, name: string): Date | null {
  if (value === undefined || value === null) return null;
  const instant = typeof value === 'string' && INSTANT.test(value) ? new Date(value) : null;
  if (instant === null || Number.isNaN(instant.getTime())) {
    throw new InvalidRequest(`'${name}' must be an ISO-8601 instant such as 2026-01-31T12:00:00Z`);
  }
  return instant;
}

/**
 * `topic`, `topics` and `destination` all narrow one topic set: each given one intersects it,
 * so a destination never adds topics. Null means no row can match.
 */
async function resolveTopics(
  request: ReplayRequest,
  deps: ReplayDeps,
): Promise<ReplayFilter | null> {
  let topics: string[] | null = request.topics === null ? null : [...request.topics];
  if (request.topic)
    topics = topics === null ? [request.topic] : topics.filter((t) => t === request.topic);
  if (request.destination) {
    const routed = (await deps.store.distinctTopics()).filter(
      (t) => deps.destinationOf(t) === request.destination,
    );
    topics = topics === null ? routed : topics.filter((t) => routed.includes(t));
    if (topics.length === 0) return null;
  }
  return {
    ids: request.ids,
    topics,
    createdAfter: request.createdAfter,
    createdBefore: request.createdBefore,
  };
}

function describe(request: ReplayRequest): string {
  const parts: string[] = [];
  if (request.ids !== null) parts.push(`ids=${request.ids.length}`);
  if (request.topic) parts.push(`topic=${request.topic}`);
  if (request.topics !== null) parts.push(`topics=${request.topics.join(',')}`);
  if (request.destination) parts.push(`destination=${request.destination}`);
  if (request.createdAfter) parts.push(`createdAfter=${request.createdAfter.toISOString()}`);
  if (request.createdBefore) parts.push(`createdBefore=${request.createdBefore.toISOString()}`);
  return parts.join(' ');
}
