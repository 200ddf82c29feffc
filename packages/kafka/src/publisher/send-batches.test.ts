import { describe, expect, it } from 'vitest';
import { groupByTopic, MAX_BATCH_BYTES, MAX_BATCH_RECORDS, takeBatch } from './send-batches.js';

const entry = (id: string, topic = 't', bytes = 10, settled = false) => ({
  id,
  topic,
  bytes,
  settled,
});
const ids = (entries: { id: string }[]) => entries.map((e) => e.id);

describe('takeBatch', () => {
  it('takes every waiting row in arrival order when they fit, dropping settled ones', () => {
    const queue = [entry('a'), entry('b', 't', 10, true), entry('c', 'u'), entry('d')];
    const { batch, rest } = takeBatch(queue);
    expect(ids(batch)).toEqual(['a', 'c', 'd']);
    expect(rest).toEqual([]);
  });

  it('stops at the record bound and keeps the order of what stays', () => {
    const queue = Array.from({ length: MAX_BATCH_RECORDS + 3 }, (_, i) => entry(`m${i}`));
    const { batch, rest } = takeBatch(queue);
    expect(batch).toHaveLength(MAX_BATCH_RECORDS);
    expect(ids(rest)).toEqual([
      `m${MAX_BATCH_RECORDS}`,
      `m${MAX_BATCH_RECORDS + 1}`,
      `m${MAX_BATCH_RECORDS + 2}`,
    ]);
  });

  it('stops at the byte bound without skipping ahead, and sends an oversized row alone', () => {
    const half = Math.floor(MAX_BATCH_BYTES / 2);
    const queue = [entry('a', 't', half), entry('b', 't', half), entry('c', 't', half), entry('d')];
    const first = takeBatch(queue);
    expect(ids(first.batch)).toEqual(['a', 'b']);
    // `d` would fit but comes after `c`: a later row never overtakes an earlier one.
    expect(ids(first.rest)).toEqual(['c', 'd']);
    const huge = takeBatch([entry('x', 't', MAX_BATCH_BYTES * 3), entry('y')]);
    expect(ids(huge.batch)).toEqual(['x']);
    expect(ids(huge.rest)).toEqual(['y']);
  });

  it('takes nothing from an empty or settled queue', () => {
    expect(takeBatch([])).toEqual({ batch: [], rest: [] });
    expect(takeBatch([entry('a', 't', 1, true)])).toEqual({ batch: [], rest: [] });
  });

  it('honours explicit bounds', () => {
    const { batch, rest } = takeBatch([entry('a'), entry('b'), entry('c')], 2, 1_000);
    expect(ids(batch)).toEqual(['a', 'b']);
    expect(ids(rest)).toEqual(['c']);
  });
});

describe('groupByTopic', () => {
  it('groups by topic in order of first appearance, rows in arrival order', () => {
    const groups = groupByTopic([
      entry('a', 'x'),
      entry('b', 'y'),
      entry('c', 'x'),
      entry('d', 'z'),
    ]);
    expect(groups.map(ids)).toEqual([['a', 'c'], ['b'], ['d']]);
  });
});
