import { describe, expect, it } from 'vitest';
import {
  deadLetter,
  defaultRetryPolicy,
  defaultSchema,
  inboxSql,
  InboxWorker,
  resolveOptions,
  retryAfter,
  sanitize,
  sanitizeError,
  MAX_ERROR_LENGTH,
  type InboxMessage,
} from './index.js';

const source = { connect: () => Promise.reject(new Error('unused')) };
const at = (attempt: number) => ({ attempt }) as InboxMessage;

describe('options', () => {
  it('has the reference defaults', () => {
    const o = resolveOptions({ source: 'orders' });
    expect(o).toMatchObject({
      source: 'orders',
      batchSize: 10,
      leaseMs: 30_000,
      maxConcurrency: 1,
      pollIntervalMs: 1000,
      shutdownGraceMs: 30_000,
      dialect: 'postgresql',
      schema: defaultSchema,
      strictAggregateOrder: false,
    });
    expect(typeof o.retryPolicy).toBe('function');
    expect(() => o.logger.info('x')).not.toThrow();
  });

  it.each<[object, ErrorConstructor, string]>([
    [{ source: '' }, TypeError, 'The source is mandatory.'],
    [{ source: '  ' }, TypeError, 'The source is mandatory.'],
    [{}, TypeError, 'The source is mandatory.'],
    [{ source: 's', batchSize: 0 }, RangeError, 'The batchSize must be a positive whole number.'],
    [{ source: 's', batchSize: 1.5 }, RangeError, 'The batchSize must be a positive whole number.'],
    [
      { source: 's', leaseMs: 2 },
      RangeError,
      'The leaseMs must be a whole number of three or more.',
    ],
    [
      { source: 's', leaseMs: 3.5 },
      RangeError,
      'The leaseMs must be a whole number of three or more.',
    ],
    [
      { source: 's', maxConcurrency: 0 },
      RangeError,
      'The maxConcurrency must be a positive whole number.',
    ],
    [{ source: 's', pollIntervalMs: 0 }, RangeError, 'The pollIntervalMs must be positive.'],
    [{ source: 's', shutdownGraceMs: -1 }, RangeError, 'The shutdownGraceMs must not be negative.'],
    ...(
      [
        ['table', 'inbox; DROP TABLE users'],
        ['id', 'in"box'],
        ['state', 'in]box'],
        ['payload', ''],
        ['headers', 'h'.repeat(64)],
      ] as const
    ).map(
      ([name, value]) =>
        [
          { source: 's', schema: { [name]: value } },
          TypeError,
          `The schema name '${name}' is not a plain SQL identifier.`,
        ] as [object, ErrorConstructor, string],
    ),
  ])('refuses %j', (options, type, text) => {
    expect(() => resolveOptions(options as never)).toThrow(type);
    expect(() => resolveOptions(options as never)).toThrow(text);
    expect(() => new InboxWorker(source, options as never)).toThrow(text);
  });

  it('accepts a 63-character name with $ and merges a partial schema onto the defaults', () => {
    const name = `a$${'b'.repeat(61)}`;
    const o = resolveOptions({ source: 's', schema: { table: name } });
    expect(o.schema).toEqual({ ...defaultSchema, table: name });
  });
});

describe('the default retry policy', () => {
  it('dead-letters once attempt reaches maxAttempts', () => {
    const policy = defaultRetryPolicy({ maxAttempts: 3 });
    expect([0, 1, 2, 3, 9].map((n) => policy(at(n), new Error()).type)).toEqual([
      'retry',
      'retry',
      'retry',
      'deadLetter',
      'deadLetter',
    ]);
    expect(defaultRetryPolicy()(at(5), undefined)).toEqual(deadLetter());
    expect(defaultRetryPolicy()(at(4), undefined).type).toBe('retry');
  });

  it('doubles from the base up to the cap', () => {
    const policy = defaultRetryPolicy({ baseDelayMs: 1000, maxDelayMs: 4000, jitter: 0 });
    expect([0, 1, 2, 3].map((n) => policy(at(n), null))).toEqual(
      [1000, 2000, 4000, 4000].map((delayMs) => ({ type: 'retry', delayMs })),
    );
  });

  it('stays within the jitter band', () => {
    const policy = defaultRetryPolicy({ baseDelayMs: 10_000, jitter: 0.2 });
    for (let n = 0; n < 500; n++) {
      const action = policy(at(0), null);
      expect(action.type).toBe('retry');
      const delay = (action as { delayMs: number }).delayMs;
      expect(delay).toBeGreaterThanOrEqual(8000);
      expect(delay).toBeLessThanOrEqual(12_000);
    }
  });

  it('caps the exponent so huge attempts do not overflow', () => {
    const policy = defaultRetryPolicy({ maxAttempts: Number.MAX_SAFE_INTEGER, jitter: 0 });
    expect(policy(at(1_000_000), null)).toEqual({ type: 'retry', delayMs: 300_000 });
  });

  it.each([
    [{ maxAttempts: 1.5 }, 'The maxAttempts must be a whole number.'],
    [{ maxAttempts: 0 }, 'The maxAttempts must be positive.'],
    [{ baseDelayMs: -1 }, 'The baseDelayMs must not be negative.'],
    [{ baseDelayMs: 10, maxDelayMs: 5 }, 'The maxDelayMs must not be below the baseDelayMs.'],
    [{ jitter: 1.5 }, 'The jitter must be between zero and one.'],
    [{ jitter: -0.1 }, 'The jitter must be between zero and one.'],
  ])('refuses %j', (options, text) => {
    expect(() => defaultRetryPolicy(options)).toThrow(RangeError);
    expect(() => defaultRetryPolicy(options)).toThrow(text);
  });

  it('has retryAfter round and refuse a negative delay', () => {
    expect(retryAfter(10.6)).toEqual({ type: 'retry', delayMs: 11 });
    expect(() => retryAfter(-1)).toThrow('The delay must not be negative.');
    expect(() => retryAfter(Number.NaN)).toThrow('The delay must not be negative.');
  });
});

describe('inboxSql', () => {
  it.each(['postgresql', 'sqlserver'] as const)(
    'gives each statement its parameter names in binding order (%s)',
    (dialect) => {
      const sql = inboxSql(dialect);
      expect(Object.fromEntries(Object.entries(sql).map(([k, v]) => [k, v.params]))).toEqual({
        claim: ['source', 'batch', 'lease_ms', 'cand_limit'],
        renew: ['lease_ms', 'id', 'token'],
        complete: ['id', 'token'],
        retry: ['delay_ms', 'error', 'id', 'token'],
        dead: ['error', 'id', 'token'],
      });
    },
  );

  it('picks the dialect: positional $n on PostgreSQL, @pn on SQL Server', () => {
    const pg = inboxSql('postgresql');
    const ss = inboxSql('sqlserver');
    expect(pg.complete.text).toContain('"id" = $1');
    expect(ss.complete.text).toContain('[id] = @p1');
    expect(ss.claim.text).toContain('sp_getapplock @Resource = @src');
    for (const s of Object.values(ss)) expect(s.text).not.toMatch(/\$\d/);
    for (const s of Object.values(pg)) expect(s.text).not.toMatch(/@p\d/);
    expect(() => inboxSql('oracle' as never)).toThrow(
      'The dialect must be "postgresql" or "sqlserver".',
    );
  });

  it('quotes only the mapped names', () => {
    const mapped = Object.fromEntries(Object.keys(defaultSchema).map((k) => [k, `m_${k}`]));
    for (const statement of Object.values(inboxSql('postgresql', mapped))) {
      const quoted = [...statement.text.matchAll(/"([^"]*)"/g)].map((m) => String(m[1]));
      expect(quoted.length).toBeGreaterThan(0);
      for (const name of quoted) expect(name).toMatch(/^m_/);
    }
  });

  it('keeps a mapped name holding $ID or $TOKEN as it is in the fenced statements', () => {
    const text = inboxSql('postgresql', { id: 'm$ID', claimToken: 'm$TOKEN' }).complete.text;
    expect(text).toContain('WHERE "m$ID" = $1');
    expect(text).toContain('"m$TOKEN" = $2');
  });
});

describe('sanitize', () => {
  it('is QueueBox sanitizer under the reference names', () => {
    expect(MAX_ERROR_LENGTH).toBe(2000);
    expect(sanitize('password=hunter2 ok')).toBe('password=[REDACTED] ok');
    expect(sanitizeError(undefined)).toBeUndefined();
    const looped = new Error('outer');
    (looped as { cause?: unknown }).cause = looped;
    expect(sanitizeError(looped)).toContain('Error: outer | caused by Error: outer');
    expect(sanitizeError('plain')).toContain('plain');
  });
});
