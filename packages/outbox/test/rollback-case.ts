import { expect } from 'vitest';
import { enqueue, enqueueMany, type OutboxHandle } from '../src/index.js';

/**
 * The enqueue contract's first rule on any client: a transaction that enqueues one message and
 * many, then fails, rethrows its failure and leaves no row behind.
 */
export async function expectRollbackWritesNothing(
  transaction: (work: (tx: OutboxHandle) => Promise<never>) => Promise<unknown>,
  rows: (topic: string) => Promise<readonly unknown[]>,
): Promise<void> {
  const failure = new Error('business rule failed');
  await expect(
    transaction(async (tx) => {
      await enqueue(tx, { topic: 'rolled.back', payload: { n: 1 } });
      await enqueueMany(tx, [{ topic: 'rolled.back', payload: { n: 2 } }]);
      throw failure;
    }),
  ).rejects.toBe(failure);
  expect(await rows('rolled.back')).toEqual([]);
}
