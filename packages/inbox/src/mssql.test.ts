import mssql from 'mssql';
import { describe, expect, it } from 'vitest';
import {
  fromMssql,
  fromPg,
  inboxSql,
  InboxWorker,
  retryAfter,
  type InboxConnectionSource,
  type InboxMessage,
  type InboxStatements,
} from './index.js';

/**
 * fromMssql on real mssql objects that never connect: the pool, its Transaction and Request
 * are mssql's own classes, and the one seam is where a request would reach the server (query)
 * or a transaction would take a connection (begin, commit, rollback). What the SQL does on a
 * server is for the contract suite (worker-mssql.integration.test.ts) and the parse test.
 */
const config = { server: '127.0.0.1', user: 'sa', password: 'x', requestTimeout: 30_000 };

interface Sent {
  readonly text: string;
  readonly inputs: [string, unknown][];
  readonly parent: unknown;
}

/** A ConnectionPool whose requests and transactions record instead of reaching a server. */
function observedPool(answer: (text: string) => Partial<mssql.IResult<unknown>> = () => ({})) {
  const pool = new mssql.ConnectionPool(config);
  const sent: Sent[] = [];
  const events: string[] = [];
  let running = 0;
  let overlapped = false;
  const request = (parent: mssql.ConnectionPool | mssql.Transaction) => {
    const r = new mssql.Request(parent as mssql.Transaction);
    const inputs: [string, unknown][] = [];
    const input = r.input.bind(r) as (name: string, value: unknown) => mssql.Request;
    r.input = ((name: string, value: unknown) => {
      inputs.push([name, value]);
      return input(name, value);
    }) as typeof r.input;
    r.query = (async (text: string) => {
      running++;
      if (running > 1 && parent !== pool) overlapped = true;
      sent.push({ text, inputs, parent });
      events.push(`query ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return { recordset: [], recordsets: [], rowsAffected: [0], output: {}, ...answer(text) };
    }) as unknown as typeof r.query;
    return r;
  };
  const transactions: mssql.Transaction[] = [];
  pool.request = () => request(pool);
  pool.transaction = () => {
    const tx = new mssql.Transaction(pool);
    transactions.push(tx);
    tx.begin = (() => {
      events.push('begin');
      return Promise.resolve(tx);
    }) as typeof tx.begin;
    tx.commit = (() => {
      events.push('commit');
      return Promise.resolve();
    }) as typeof tx.commit;
    tx.rollback = (() => {
      events.push('rollback');
      return Promise.resolve();
    }) as typeof tx.rollback;
    tx.request = () => request(tx);
    return tx;
  };
  return { pool, sent, events, transactions, overlapped: () => overlapped };
}

describe('fromMssql', () => {
  it('takes the reference form fromMssql(mssql, pool) and the pool alone', () => {
    const pool = new mssql.ConnectionPool(config);
    expect(typeof fromMssql(mssql, pool).connect).toBe('function');
    expect(typeof fromMssql(pool).connect).toBe('function');
  });

  it('refuses what is not a pool or not the module, saying how to call it', () => {
    const pool = new mssql.ConnectionPool(config);
    expect(() => fromMssql({} as never)).toThrow(
      'fromMssql needs an mssql ConnectionPool: fromMssql(pool) or fromMssql(mssql, pool)',
    );
    expect(() => fromMssql({} as never, pool)).toThrow(/needs the mssql module/);
    expect(() => fromMssql(mssql, null as never)).toThrow(/needs an mssql ConnectionPool/);
  });

  it('refuses a pool whose requests time out before the claim lock wait can end (spec §9.2)', () => {
    const withDefault = new mssql.ConnectionPool({ server: 'h', user: 'u', password: 'p' });
    expect(() => fromMssql(withDefault)).toThrow(
      "The mssql pool's requestTimeout is 15000 ms; the pull worker needs at least 30000 ms",
    );
    const short = new mssql.ConnectionPool({ ...config, requestTimeout: 29_999 });
    expect(() => fromMssql(mssql, short)).toThrow(RangeError);
    const viaOptions = new mssql.ConnectionPool({
      ...config,
      requestTimeout: 60_000,
      options: { requestTimeout: 1000 },
    });
    expect(() => fromMssql(viaOptions)).toThrow(/is 1000 ms/);
    // No timeout at all is allowed; so is a connection string's setting.
    expect(() =>
      fromMssql(new mssql.ConnectionPool({ ...config, requestTimeout: 0 })),
    ).not.toThrow();
    const fromString = new mssql.ConnectionPool(
      'Server=h;User Id=u;Password=p;Request Timeout=45000',
    );
    expect(() => fromMssql(fromString)).not.toThrow();
  });

  it('binds parameters by position as p1..pN on a pool request outside a transaction', async () => {
    const o = observedPool((text) =>
      text === 'SELECT 1'
        ? { recordset: undefined, rowsAffected: [] }
        : { recordset: [{ a: 1 }] as never, rowsAffected: [3, 9] },
    );
    const connection = await fromMssql(o.pool).connect();
    const result = await connection.query('SELECT @p1, @p2, @p3', ['x', 7, null]);
    expect(result).toEqual({ rows: [{ a: 1 }], rowCount: 3 });
    expect(o.sent[0]).toMatchObject({
      inputs: [
        ['p1', 'x'],
        ['p2', 7],
        ['p3', null],
      ],
      parent: o.pool,
    });
    expect(await connection.query('SELECT 1')).toEqual({ rows: [], rowCount: 0 });
    connection.release();
  });

  it.each([
    ['fromMssql(pool)', (pool: mssql.ConnectionPool) => fromMssql(pool)],
    ['fromMssql(mssql, pool)', (pool: mssql.ConnectionPool) => fromMssql(moduleOver(pool), pool)],
  ])(
    '%s runs the queries between begin and commit on the transaction, one at a time',
    async (_name, adapt) => {
      const o = observedPool();
      const connection = await adapt(o.pool).connect();
      await connection.begin();
      await Promise.all([connection.query('A', [1]), connection.query('B', [2])]);
      await connection.commit();
      await connection.query('C');
      expect(o.events).toEqual(['begin', 'query A', 'query B', 'commit', 'query C']);
      expect(o.overlapped()).toBe(false);
      const tx = o.transactions[0];
      expect(o.sent.map((s) => s.parent === tx)).toEqual([true, true, false]);
      connection.release();
    },
  );

  it('rolls back, and release rolls back a transaction still open', async () => {
    const o = observedPool();
    const connection = await fromMssql(o.pool).connect();
    await connection.begin();
    await connection.rollback();
    await connection.begin();
    await connection.query('A');
    connection.release();
    connection.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(o.events).toEqual(['begin', 'rollback', 'begin', 'query A', 'rollback']);
  });

  it('after the server rolled the transaction back, refuses queries and the commit, and never runs them outside it', async () => {
    const o = observedPool();
    const connection = await fromMssql(o.pool).connect();
    await connection.begin();
    // What mssql emits when the server ends the transaction itself (XACT_ABORT, a deadlock).
    o.transactions[0]!.emit('rollback', true);
    await expect(connection.query('complete')).rejects.toThrow(
      'The server rolled the transaction back',
    );
    await expect(connection.commit()).rejects.toThrow('The server rolled the transaction back');
    await connection.begin();
    o.transactions[1]!.emit('rollback', true);
    await connection.rollback(); // nothing left to roll back; mssql would refuse (EABORT)
    expect(o.events).toEqual(['begin', 'begin']);
    connection.release();
  });
});

describe('the worker on SQL Server', () => {
  it('refuses an adapter of the other dialect at construction, with the fix', () => {
    const pool = new mssql.ConnectionPool(config);
    expect(() => new InboxWorker(fromMssql(mssql, pool), { source: 'orders' })).toThrow(
      'The connections come from fromMssql, which speaks SQL Server: set dialect: "sqlserver".',
    );
    const pg = { connect: () => Promise.reject(new Error('never')) };
    expect(() => new InboxWorker(fromPg(pg), { source: 'orders', dialect: 'sqlserver' })).toThrow(
      /fromPg, which speaks PostgreSQL/,
    );
  });

  it('keeps delays and leases within the INT that DATEADD takes on SQL Server', async () => {
    const sql = inboxSql('sqlserver');
    const { source, sent } = claimingOnce(sql, row('A', 'B'));
    const stop = new AbortController();
    const options = { source: 'orders', dialect: 'sqlserver', pollIntervalMs: 10 } as const;
    expect(() => new InboxWorker(source, { ...options, leaseMs: 2 ** 31 })).toThrow(
      'On SQL Server the leaseMs must be at most 2147483647.',
    );
    const worker = new InboxWorker(source, { ...options, retryPolicy: () => retryAfter(1e12) });
    await worker.run(() => {
      stop.abort();
      return Promise.reject(new Error('later'));
    }, stop.signal);
    expect(sent).toContainEqual({
      text: sql.retry.text,
      params: [2_147_483_647, 'Error: later', 'a', 'B'],
    });
  });

  it('sends the SQL Server statements with their parameters, parses the text columns and gives the id in lower case', async () => {
    const sql = inboxSql('sqlserver');
    const id = 'A1B2C3D4-0000-4000-8000-00000000000F';
    const token = 'F00DF00D-0000-4000-8000-000000000001';
    const seen: InboxMessage[] = [];
    const { source, sent } = claimingOnce(sql, row(id, token));
    const stop = new AbortController();
    const worker = new InboxWorker(source, {
      source: 'orders',
      dialect: 'sqlserver',
      batchSize: 7,
      leaseMs: 40_000,
      pollIntervalMs: 10,
    });
    const run = worker.run((message) => {
      seen.push(message);
      stop.abort();
      return Promise.resolve();
    }, stop.signal);
    await run;
    expect(sent[0]).toEqual({ text: sql.claim.text, params: ['orders', 7, 40_000, 50] });
    expect(sent).toContainEqual({ text: sql.complete.text, params: [id.toLowerCase(), token] });
    expect(seen).toEqual([
      {
        id: id.toLowerCase(),
        source: 'orders',
        idempotencyKey: 'k-1',
        aggregateId: 'order-1',
        eventType: null,
        payload: { total: 12345.5, items: ['a'] },
        headers: { 'x-tenant': 'acme' },
        attempt: 2,
        correlationId: null,
      },
    ]);
  });
});

/**
 * A connection source whose first claim returns `claimed` and every later one nothing; it
 * records each statement sent, with its parameters.
 */
function claimingOnce(sql: InboxStatements, claimed: Record<string, unknown>) {
  const sent: { text: string; params: readonly unknown[] | undefined }[] = [];
  let claims = 0;
  const source: InboxConnectionSource = {
    connect: () =>
      Promise.resolve({
        query: (text: string, params?: readonly unknown[]) => {
          sent.push({ text, params });
          const first = text === sql.claim.text && ++claims === 1;
          return Promise.resolve({ rows: first ? [claimed] : [], rowCount: 1 });
        },
        begin: () => Promise.resolve(),
        commit: () => Promise.resolve(),
        rollback: () => Promise.resolve(),
        release: () => undefined,
      }),
  };
  return { source, sent };
}

/** A claimed row as mssql returns it: upper-case uniqueidentifiers, JSON as NVARCHAR text. */
function row(id: string, token: string): Record<string, unknown> {
  return {
    id,
    source: 'orders',
    idempotency_key: 'k-1',
    aggregate_id: 'order-1',
    event_type: null,
    payload: '{"total":12345.5,"items":["a"]}',
    headers: '{"x-tenant":"acme"}',
    attempt: 2,
    correlation_id: null,
    claim_token: token,
    state: 'processing',
  };
}

/** The module as the reference form receives it, its constructors handing out the pool's fakes. */
function moduleOver(pool: mssql.ConnectionPool): typeof mssql {
  return {
    ...mssql,
    Transaction: function Transaction() {
      return pool.transaction();
    },
    Request: function Request(parent: mssql.Transaction | mssql.ConnectionPool) {
      return parent === pool ? pool.request() : (parent as mssql.Transaction).request();
    },
  } as unknown as typeof mssql;
}
