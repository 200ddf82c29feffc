import type { InboxSchema } from './schema.js';

/** One claimed message as the handler sees it. The claim token stays inside the worker. */
export interface InboxMessage {
  readonly id: string;
  readonly source: string;
  readonly idempotencyKey: string;
  readonly aggregateId: string | null;
  readonly eventType: string | null;
  /** The stored JSON, parsed. */
  readonly payload: unknown;
  /** One string per header name; `{}` when none. */
  readonly headers: Readonly<Record<string, string>>;
  /** Earlier failed deliveries: 0 on the first. */
  readonly attempt: number;
  readonly correlationId: string | null;
}

type Row = Readonly<Record<string, unknown>>;

/**
 * A claimed row, read through the schema's names, as the handler's message and its token. On
 * SQL Server (`sqlserver`) the payload and headers arrive as NVARCHAR text and are parsed, and
 * the id, a UNIQUEIDENTIFIER that mssql hands over in upper case, is given in lower case: the
 * form PostgreSQL gives and QueueBox's own SQL Server stores report.
 */
export function messageFrom(
  row: Row,
  schema: InboxSchema,
  sqlserver: boolean,
): { message: InboxMessage; token: string } {
  const text = (name: string): string | null => {
    const value = row[name];
    return value === null || value === undefined
      ? null
      : typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'bigint'
          ? value.toString()
          : JSON.stringify(value);
  };
  const json = (value: unknown): unknown =>
    sqlserver && typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  const headers = json(row[schema.headers]) as Record<string, string> | null | undefined;
  const message: InboxMessage = Object.freeze({
    id: sqlserver ? String(row[schema.id]).toLowerCase() : String(row[schema.id]),
    source: String(row[schema.source]),
    idempotencyKey: String(row[schema.idempotencyKey]),
    aggregateId: text(schema.aggregateId),
    eventType: text(schema.eventType),
    payload: json(row[schema.payload]),
    headers: Object.freeze({ ...(headers ?? {}) }),
    attempt: Number(row[schema.attempt]),
    correlationId: text(schema.correlationId),
  });
  return { message, token: String(row[schema.claimToken]) };
}
