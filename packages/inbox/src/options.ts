import { defaultRetryPolicy, type InboxRetryPolicy } from './retry-policy.js';
import { resolveSchema, type InboxSchema } from './schema.js';

export type SqlDialect = 'postgresql' | 'sqlserver';

type LogFields = Readonly<Record<string, unknown>>;

/** Where the worker reports; every text and error in it is sanitized already. */
export interface InboxLogger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface InboxOptions {
  /** The pull source: the key under QueueBox's `sources`. */
  readonly source: string;
  /** The most messages held at once (claimed and not finished): default 10. */
  readonly batchSize?: number;
  /** The claim's lease, renewed every leaseMs / 3: default 30 000. */
  readonly leaseMs?: number;
  /** Handlers running at once, at most batchSize: default 1. */
  readonly maxConcurrency?: number;
  /** The wait after an empty or failed claim: default 1000. */
  readonly pollIntervalMs?: number;
  /** How long running handlers may finish after the stop: default 30 000. */
  readonly shutdownGraceMs?: number;
  /** The database the connections speak: `postgresql` (default) or `sqlserver` (fromMssql). */
  readonly dialect?: SqlDialect;
  /** Table and column names, when QueueBox maps them (spec §3.6). */
  readonly schema?: Partial<InboxSchema>;
  readonly retryPolicy?: InboxRetryPolicy;
  readonly logger?: InboxLogger;
  /**
   * Not in the reference client. When true, the messages of an aggregate complete in receipt
   * order: one waiting for its retry holds back every later message of its aggregate. When
   * false (the default, the reference's rule), a retry gives up its place, and a later message
   * of the aggregate that is due runs first. See docs/decisions.md.
   */
  readonly strictAggregateOrder?: boolean;
}

export interface ResolvedInboxOptions {
  readonly source: string;
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly maxConcurrency: number;
  readonly pollIntervalMs: number;
  readonly shutdownGraceMs: number;
  readonly dialect: SqlDialect;
  readonly schema: InboxSchema;
  readonly retryPolicy: InboxRetryPolicy;
  readonly logger: InboxLogger;
  readonly strictAggregateOrder: boolean;
}

const silent: InboxLogger = Object.freeze({
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

const isWhole = (value: unknown): value is number => Number.isInteger(value);

/** Defaults and validation of the options; throws TypeError or RangeError with the reference's texts. */
export function resolveOptions(options: InboxOptions): ResolvedInboxOptions {
  const o = options ?? ({} as InboxOptions);
  if (typeof o.source !== 'string' || o.source.trim() === '') {
    throw new TypeError('The source is mandatory.');
  }
  const batchSize = o.batchSize ?? 10;
  if (!isWhole(batchSize) || batchSize < 1) {
    throw new RangeError('The batchSize must be a positive whole number.');
  }
  const leaseMs = o.leaseMs ?? 30_000;
  if (!isWhole(leaseMs) || leaseMs < 3) {
    throw new RangeError('The leaseMs must be a whole number of three or more.');
  }
  const maxConcurrency = o.maxConcurrency ?? 1;
  if (!isWhole(maxConcurrency) || maxConcurrency < 1) {
    throw new RangeError('The maxConcurrency must be a positive whole number.');
  }
  const pollIntervalMs = o.pollIntervalMs ?? 1000;
  if (
    typeof pollIntervalMs !== 'number' ||
    !(pollIntervalMs > 0) ||
    !Number.isFinite(pollIntervalMs)
  ) {
    throw new RangeError('The pollIntervalMs must be positive.');
  }
  const shutdownGraceMs = o.shutdownGraceMs ?? 30_000;
  if (typeof shutdownGraceMs !== 'number' || !(shutdownGraceMs >= 0)) {
    throw new RangeError('The shutdownGraceMs must not be negative.');
  }
  const dialect = o.dialect ?? 'postgresql';
  if (dialect !== 'postgresql' && dialect !== 'sqlserver') {
    throw new TypeError('The dialect must be "postgresql" or "sqlserver".');
  }
  if (o.retryPolicy !== undefined && typeof o.retryPolicy !== 'function') {
    throw new TypeError('The retryPolicy must be a function.');
  }
  return Object.freeze({
    source: o.source,
    batchSize,
    leaseMs,
    maxConcurrency,
    pollIntervalMs,
    shutdownGraceMs,
    dialect,
    schema: resolveSchema(o.schema),
    retryPolicy: o.retryPolicy ?? defaultRetryPolicy(),
    logger: o.logger ?? silent,
    strictAggregateOrder: o.strictAggregateOrder === true,
  });
}
