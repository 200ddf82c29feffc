import { describe, expect, it } from 'vitest';
import { CaptureInstanceGone, compareLsn, lsnOf, LsnCursor, ZERO_LSN } from './lsn-cursor.js';

const lsn = (n: number) => `0x${n.toString(16).toUpperCase().padStart(20, '0')}`;
const poll = (
  upto: number | null,
  operations: [number, number][] = [],
  minLsn: number | null = 1,
) => ({
  upto: upto === null ? null : lsn(upto),
  minLsn: minLsn === null ? null : lsn(minLsn),
  operations: operations.map(([operation, changes]) => ({ operation, changes })),
});

describe('the LSN bookkeeping of the change-table poll', () => {
  it('reads LSNs as the server writes them and orders them as LSNs', () => {
    expect(lsnOf('0x0000002a000001f00003')).toBe('0x0000002A000001F00003');
    expect(lsnOf(null)).toBeNull();
    expect(() => lsnOf('0x12')).toThrow('Not an LSN: 0x12');
    expect(compareLsn(lsn(0xff), lsn(0x100))).toBe(-1);
    expect(compareLsn(lsn(0x2a_0000_0001), lsn(0x2a_0000_0001))).toBe(0);
  });

  it('wakes on inserts only once per poll, reports updates and deletes, and moves to each upto', () => {
    const cursor = new LsnCursor(lsn(10), 'dbo_outbox');
    expect(cursor.apply(poll(20, [[2, 300]]))).toEqual(['insert']);
    expect(cursor.position).toBe(lsn(20));
    expect(
      cursor.apply(
        poll(25, [
          [3, 1],
          [4, 1],
          [1, 2],
        ]),
      ),
    ).toEqual(['update', 'delete']);
    // Nothing new: the same window is not reported twice.
    expect(cursor.apply(poll(25))).toEqual([]);
    expect(cursor.position).toBe(lsn(25));
  });

  it('reports an operation it does not know, and an empty count not at all', () => {
    const cursor = new LsnCursor(lsn(1), 'dbo_outbox');
    expect(
      cursor.apply(
        poll(2, [
          [5, 1],
          [2, 0],
        ]),
      ),
    ).toEqual(['unreadable']);
  });

  it('wakes when the LSNs went backwards (a restore, CDC enabled again) and continues from there', () => {
    const cursor = new LsnCursor(lsn(500), 'dbo_outbox');
    expect(cursor.apply(poll(40))).toEqual(['unreadable']);
    expect(cursor.position).toBe(lsn(40));
    expect(cursor.apply(poll(41, [[2, 1]]))).toEqual(['insert']);
  });

  it('wakes when cleanup removed changes the cursor had not reached', () => {
    const cursor = new LsnCursor(lsn(100), 'dbo_outbox');
    expect(cursor.apply(poll(900, [], 800))).toEqual(['unreadable']);
    // Caught up: a low mark below the cursor is the normal case.
    expect(cursor.apply(poll(950, [], 800))).toEqual([]);
  });

  it('waits while the capture job has written nothing, and ends when the instance is gone', () => {
    const cursor = new LsnCursor(ZERO_LSN, 'dbo_outbox');
    expect(cursor.apply(poll(null, [], null))).toEqual([]);
    expect(cursor.position).toBe(ZERO_LSN);
    expect(() => cursor.apply({ upto: lsn(3), minLsn: ZERO_LSN, operations: [] })).toThrow(
      CaptureInstanceGone,
    );
    expect(() => cursor.apply({ upto: lsn(3), minLsn: ZERO_LSN, operations: [] })).toThrow(
      'The capture instance dbo_outbox of the outbox table no longer exists',
    );
  });
});
