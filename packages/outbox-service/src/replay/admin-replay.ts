/**
 * The logic of `POST /admin/replay` (spec §11.6), apart from HTTP: read the request body, turn
 * its filters into one ReplayFilter (a destination becomes the topics the router sends there),
 * and move `sent` and `dead` rows back to `pending` through the store. The state filter is in
 * the store's SQL and cannot be widened from here. The app's route reads, authenticates and
 * answers; it holds no replay rule.
 */
import type { OutboxStore, ReplayFilter } from '@queuebox/core';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReplayDeps {
  readonly store: Pick<OutboxStore, 'distinctTopics' | 'replay'>;
  /** The real router's first-match answer: which destination a topic goes to. */
  readonly destinationOf: (topic: string) => string | null;
}

/** What a replay did: the rows moved, and the filter as a log line reads it. */
export interface ReplayOutcome {
  readonly moved: number;
  readonly description: string;
}

/** Resolves the request's filters and replays every matching `sent` and `dead` row. */
export async function replayOutbox(
  request: ReplayRequest,
  deps: ReplayDeps,
): Promise<ReplayOutcome> {
  const filter = await resolveReplayFilter(request, deps);
  const moved = filter === null ? 0 : await deps.store.replay(filter);
  return { moved, description: describeReplay(request) };
}

export interface ReplayRequest {
  readonly ids: readonly string[] | null;
  readonly topic: string | null;
  readonly topics: readonly string[] | null;
  readonly destination: string | null;
  readonly createdAfter: Date | null;
  readonly createdBefore: Date | null;
}

class InvalidRequest extends Error {}

export type ParsedReplay = ReplayRequest | { readonly invalid: string } | 'empty';

/** The request, `'empty'` when it sets no filter at all, or the reason it is invalid. */
export function parseReplayRequest(body: unknown): ParsedReplay {
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
export async function resolveReplayFilter(
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

export function describeReplay(request: ReplayRequest): string {
  const parts: string[] = [];
  if (request.ids !== null) parts.push(`ids=${request.ids.length}`);
  if (request.topic) parts.push(`topic=${request.topic}`);
  if (request.topics !== null) parts.push(`topics=${request.topics.join(',')}`);
  if (request.destination) parts.push(`destination=${request.destination}`);
  if (request.createdAfter) parts.push(`createdAfter=${request.createdAfter.toISOString()}`);
  if (request.createdBefore) parts.push(`createdBefore=${request.createdBefore.toISOString()}`);
  return parts.join(' ');
}
