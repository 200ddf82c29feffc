import { randomUUID } from 'node:crypto';
import mssql from 'mssql';
import nodeSqlParser from 'node-sql-parser';
import { describe, expect, it } from 'vitest';
import { createOutbox } from '../enqueue.js';
import { toRow } from '../message.js';
import { resolveSchema } from '../schema.js';
import { ROWS_PER_REQUEST, sqlServerInsert, sqlServerNames } from './sqlserver.js';

const parser = new nodeSqlParser.Parser();
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    toRow(
      {
        topic: `t${i}`,
        key: 'k',
        payload: { i },
        headers: { h: 'v' },
        maxAttempts: 3,
        scheduledAt: new Date('2024-03-01T12:00:00.000Z'),
      },
      randomUUID,
    ),
  );
const layouts = {
  default: resolveSchema(),
  renamed: resolveSchema({ table: 'app_outbox', columns: { key: 'stream', payload: 'body' } }),
};

/**
 * No SQL Server runs here, so the insert @queuebox/outbox sends on an mssql transaction is read
 * with node-sql-parser's transactsql grammar, and each statement must bind exactly the
 * parameters the request is given (a name in the text that is not bound fails on the server with
 * Msg 137).
 */
describe('the SQL Server outbox insert', () => {
  it.each(Object.entries(layouts))('parses and binds exactly its parameters (%s)', (_l, names) => {
    const statement = sqlServerInsert(sqlServerNames(names), rows(3));
    const parts = statement.text.split(';\n').map((part) => part.replace(/;$/, ''));
    expect(parts).toHaveLength(3);
    for (const part of parts) parser.astify(part, { database: 'transactsql' });
    const used = [...statement.text.matchAll(/@(\w+)/g)].map((m) => m[1]).sort();
    expect(used).toEqual(statement.params.map((p) => p.name).sort());
    expect(statement.params).toHaveLength(24);
    expect(statement.params.every((p) => p.value === null || typeof p.value === 'string')).toBe(
      true,
    );
  });

  it('writes the renamed table and columns, bracketed', () => {
    const text = sqlServerInsert(sqlServerNames(layouts.renamed), rows(1)).text;
    expect(text).toMatch(/^INSERT INTO \[app_outbox\] \(\[id\], \[topic\], \[stream\], /);
    expect(text).toContain('[body]');
  });

  it('can fail: a broken statement does not parse', () => {
    expect(() =>
      parser.astify('INSERT INTO [outbox] ([id] VALUES (@id0)', { database: 'transactsql' }),
    ).toThrow();
  });

  it('keeps each request under the 2,100-parameter limit of SQL Server', () => {
    expect(ROWS_PER_REQUEST * 8).toBeLessThan(2100);
  });
});

/** Real mssql objects, never connected: how a handle is recognised, and the pool refused. */
describe('an mssql handle', () => {
  const pool = new mssql.ConnectionPool({ server: '127.0.0.1', user: 'sa', password: 'x' });

  it('refuses a ConnectionPool, whose requests would leave the transaction', async () => {
    await expect(createOutbox().enqueue(pool, { topic: 'a', payload: 1 })).rejects.toThrow(
      /not a Transaction \(a ConnectionPool\?\)/,
    );
  });

  it("sends the insert through the transaction's own request, every value as text", async () => {
    const tx = new mssql.Transaction(pool);
    const sent: { text: string; inputs: [string, unknown][] }[] = [];
    // The one seam: the request a never-begun transaction would hand out, observed.
    tx.request = () => {
      const request = new mssql.Request(tx);
      const inputs: [string, unknown][] = [];
      request.input = ((name: string, value: unknown) => {
        inputs.push([name, value]);
        return request;
      }) as typeof request.input;
      request.query = ((text: string) => {
        sent.push({ text, inputs });
        return Promise.resolve({ recordset: [], recordsets: [], rowsAffected: [1], output: {} });
      }) as unknown as typeof request.query;
      return request;
    };
    const ids = await createOutbox().enqueueMany(
      tx,
      Array.from({ length: ROWS_PER_REQUEST + 1 }, (_, i) => ({ topic: 't', payload: { i } })),
    );
    expect(ids).toHaveLength(ROWS_PER_REQUEST + 1);
    expect(sent.map((s) => s.inputs.length)).toEqual([ROWS_PER_REQUEST * 8, 8]);
    expect(sent[1]?.inputs[0]).toEqual(['id0', ids[ROWS_PER_REQUEST]]);
    expect(
      sent.flatMap((s) => s.inputs).every(([, v]) => v === null || typeof v === 'string'),
    ).toBe(true);
  });
});
