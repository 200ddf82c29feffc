import type { ChangeKind } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import type { StatementResult } from '../connection/session.js';
import type { Statement } from '../sql/statement.js';
import { openChangeTablePoller } from './change-table-poller.js';

const lsn = (n: number) => `0x${n.toString(16).toUpperCase().padStart(20, '0')}`;

/** One poll's answer, as tedious hands the batch's two result sets over. */
function answer(upto: number, operations: [number, number][] = []): StatementResult {
  const bounds = [{ upto: lsn(upto), minLsn: lsn(1) }];
  const counts = operations.map(([operation, changes]) => ({ operation, changes }));
  return { rows: [...bounds, ...counts], recordsets: [bounds, counts], rowCount: 0 };
}

/**
 * The poll loop against scripted answers (no SQL Server runs here; the statements themselves
 * are read by the parse test, and the loop on a real server by capture-source.integration):
 * each poll asks from where the previous one ended, reports what it saw, and a failure ends
 * the feed with its reason.
 */
describe('the change-table poller', () => {
  function start(script: (StatementResult | Error)[]) {
    const sent: Statement[] = [];
    const kinds: ChangeKind[] = [];
    let polls = 0;
    const stream = openChangeTablePoller({
      run: (statement) => {
        sent.push(statement);
        const next = script[polls++] ?? answer(30 + polls);
        return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
      },
      captureInstance: 'dbo_outbox',
      changeTable: '[cdc].[dbo_outbox_CT]',
      start: lsn(10),
      listener: { onChange: (kind) => kinds.push(kind) },
      intervalMs: 1,
    });
    return { stream, sent, kinds };
  }
  const after = (statement: Statement | undefined) =>
    statement?.params.find((param) => param.name === 'after')?.value;

  it('asks each poll from the LSN the previous one reached and reports what it counted', async () => {
    const { stream, sent, kinds } = start([
      answer(20, [[2, 5]]),
      answer(20),
      answer(28, [
        [4, 1],
        [3, 1],
      ]),
      answer(29, [[2, 1]]),
    ]);
    while (sent.length < 5) await new Promise((resolve) => setTimeout(resolve, 2));
    await stream.close();
    await expect(stream.ended).resolves.toBeUndefined();
    expect(sent.slice(0, 5).map(after)).toEqual([lsn(10), lsn(20), lsn(20), lsn(28), lsn(29)]);
    expect(sent[0]?.text).toContain('FROM [cdc].[dbo_outbox_CT] AS c');
    expect(sent[0]?.params.find((p) => p.name === 'captureInstance')?.value).toBe('dbo_outbox');
    expect(kinds.slice(0, 3)).toEqual(['insert', 'update', 'insert']);
  });

  it('ends the feed with the reason when a poll fails', async () => {
    const { stream, kinds } = start([
      answer(11, [[2, 1]]),
      Object.assign(new Error("Invalid object name 'cdc.dbo_outbox_CT'."), { number: 208 }),
    ]);
    await expect(stream.ended).rejects.toThrow("Invalid object name 'cdc.dbo_outbox_CT'.");
    expect(kinds).toEqual(['insert']);
  });

  it('ends the feed when the capture instance is gone', async () => {
    const gone: StatementResult = {
      rows: [],
      recordsets: [[{ upto: lsn(40), minLsn: lsn(0) }], []],
      rowCount: 0,
    };
    const { stream } = start([gone]);
    await expect(stream.ended).rejects.toThrow('no longer exists');
  });
});
