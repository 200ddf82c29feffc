import type { ConsoleFilter, ConsolePosition, ConsoleTable } from '@queuebox/core';

/**
 * Reading the console's filters, from a query string (lists) or a JSON body (writes), into one
 * `ConsoleFilter`. Every value is checked here, so the store binds only well-formed ones.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A timestamp as the database writes it (`2026-01-31 12:00:00.123456+00`), for cursors. */
const POSITION_TIME =
  /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,7})?( ?(Z|[+-]\d{2}(:?\d{2})?))?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/;

export const STATES: Readonly<Record<ConsoleTable, readonly string[]>> = {
  outbox: ['pending', 'processing', 'sent', 'dead'],
  inbox: ['pending', 'processing', 'processed', 'dead'],
};

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;
export const DEFAULT_WRITE_LIMIT = 1000;
export const MAX_WRITE_LIMIT = 10_000;
const MAX_Q = 200;

export class InvalidFilter extends Error {}

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** The filter a request names; `destination` stays aside, the router resolves it. */
export interface ParsedFilter {
  readonly filter: ConsoleFilter;
  readonly destination: string | null;
}

interface RawFilter {
  readonly ids: readonly string[] | null;
  readonly states: readonly string[] | null;
  readonly groups: readonly string[] | null;
  readonly destination: string | null;
  readonly from: string | null;
  readonly to: string | null;
  readonly q: string | null;
}

export function checkFilter(table: ConsoleTable, raw: RawFilter): ParsedFilter {
  const badId = raw.ids?.find((id) => !UUID.test(id));
  if (badId !== undefined) throw new InvalidFilter(`'${badId}' in 'ids' is not a UUID`);
  const badState = raw.states?.find((state) => !STATES[table].includes(state));
  if (badState !== undefined)
    throw new InvalidFilter(
      `'state' must be one of ${STATES[table].join(', ')}, not '${badState}'`,
    );
  if (raw.q !== null && raw.q.length > MAX_Q)
    throw new InvalidFilter(`'q' must be at most ${MAX_Q} characters`);
  if (table === 'inbox' && raw.destination !== null)
    throw new InvalidFilter("'destination' filters the outbox only; the inbox has 'source'");
  return {
    filter: {
      ids: raw.ids,
      states: raw.states,
      groups: raw.groups,
      from: instant(raw.from, 'from'),
      to: instant(raw.to, 'to'),
      q: raw.q === null || raw.q === '' ? null : raw.q,
    },
    destination: raw.destination === '' ? null : raw.destination,
  };
}

function instant(value: string | null, name: string): Date | null {
  if (value === null || value === '') return null;
  const date = INSTANT.test(value) ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime()))
    throw new InvalidFilter(`'${name}' must be an ISO-8601 instant such as 2026-01-31T12:00:00Z`);
  return date;
}

/**
 * Refuses a query string whose parameters do not percent-decode to UTF-8 (`%FF`, `%C3%28`). The
 * router hands such a value on undecoded, which would search for the escape text itself.
 */
export function checkQueryEncoding(url: string): void {
  const start = url.indexOf('?');
  if (start < 0) return;
  for (const pair of url.slice(start + 1).split('&')) {
    const [rawName = '', rawValue = ''] = pair.split('=', 2);
    const decode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    let name = rawName;
    try {
      name = decode(rawName);
      decode(rawValue);
    } catch {
      throw new InvalidFilter(
        `'${name}' is not UTF-8 once percent-decoded: encode its value as UTF-8`,
      );
    }
  }
}

/** A list's query string: repeated or comma-separated `state`, `topic`/`source`, `id`. */
export function filterFromQuery(
  table: ConsoleTable,
  query: (name: string) => string[] | undefined,
): ParsedFilter {
  const list = (name: string) => {
    const values = (query(name) ?? []).flatMap((v) => v.split(',')).filter((v) => v !== '');
    return values.length === 0 ? null : values;
  };
  const one = (name: string) => query(name)?.[0] ?? null;
  return checkFilter(table, {
    ids: list('id'),
    states: list('state'),
    groups: list(table === 'outbox' ? 'topic' : 'source'),
    destination: one('destination'),
    from: one('from'),
    to: one('to'),
    q: one('q'),
  });
}

/** A write's JSON body: `ids`, `topic`/`topics` or `source`/`sources`, `destination`, ... */
export function filterFromBody(table: ConsoleTable, body: Record<string, unknown>): ParsedFilter {
  const group = table === 'outbox' ? 'topic' : 'source';
  const single = optionalString(body[group], group);
  const many = stringList(body[`${group}s`], `${group}s`);
  const groups =
    single === null ? many : many === null ? [single] : many.filter((g) => g === single);
  return checkFilter(table, {
    ids: stringList(body.ids, 'ids'),
    states: null,
    groups,
    destination: optionalString(body.destination, 'destination'),
    from: optionalString(body.from, 'from'),
    to: optionalString(body.to, 'to'),
    q: optionalString(body.q, 'q'),
  });
}

/** Whether a write names anything at all: an empty filter never touches every dead row. */
export function namesRows(parsed: ParsedFilter): boolean {
  const f = parsed.filter;
  return (
    f.ids !== null ||
    f.groups !== null ||
    f.from !== null ||
    f.to !== null ||
    f.q !== null ||
    parsed.destination !== null
  );
}

export function limitOf(value: unknown, fallback: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new InvalidFilter(`'limit' must be an integer from 1 to ${max}`);
  return n;
}

function optionalString(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new InvalidFilter(`'${name}' must be a string`);
  return value;
}

function stringList(value: unknown, name: string): readonly string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw new InvalidFilter(`'${name}' must be a list of strings`);
  return value as string[];
}

/** The cursor is opaque to callers: the last row's position, base64url JSON. */
export function encodeCursor(position: ConsolePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): ConsolePosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      UUID.test(value[1]) &&
      POSITION_TIME.test(value[0])
    )
      return { createdAt: value[0], id: value[1] };
  } catch {
    // Falls through to the one answer for any malformed cursor.
  }
  throw new InvalidFilter("'cursor' is not a cursor this API returned");
}

/** The filter as a log line reads it, like the replay's. */
export function describeFilter(parsed: ParsedFilter, table: ConsoleTable): string {
  const f = parsed.filter;
  const parts: string[] = [];
  if (f.ids !== null) parts.push(`ids=${f.ids.length}`);
  if (f.groups !== null)
    parts.push(`${table === 'outbox' ? 'topics' : 'sources'}=${f.groups.join(',')}`);
  if (parsed.destination !== null) parts.push(`destination=${parsed.destination}`);
  if (f.from !== null) parts.push(`from=${f.from.toISOString()}`);
  if (f.to !== null) parts.push(`to=${f.to.toISOString()}`);
  if (f.q !== null) parts.push(`q=${JSON.stringify(f.q)}`);
  return parts.join(' ');
}
