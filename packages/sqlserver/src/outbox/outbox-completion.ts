import type { Clock, Fence, OutboxCompletion, OutboxStore } from '@queuebox/core';
import {
  asGiven,
  checkLease,
  chunks,
  type OutboxCalls,
  type OutboxStatements,
} from './outbox-calls.js';

/**
 * Complete, renew and release: fenced batches (spec §4.3), each row's claim token checked in the
 * SQL, so a replica whose lease expired changes nothing. Each returns the ids it still owned.
 */
export function createCompletion(
  calls: OutboxCalls,
  s: OutboxStatements,
  clock: Clock,
): Pick<OutboxStore, 'complete' | 'renew' | 'release'> {
  return {
    async complete(completions: readonly OutboxCompletion[]) {
      if (completions.length === 0) return new Set();
      const now = clock.now();
      const owned = await calls.ids(
        'complete outbox rows',
        chunks(completions).map((chunk) => s.complete(chunk, now)),
      );
      return asGiven(
        completions.map((c) => c.fence),
        owned,
      );
    },
    async renew(fences: readonly Fence[], leaseMs: number) {
      if (fences.length === 0) return new Set();
      checkLease(leaseMs);
      const owned = await calls.ids(
        'renew outbox leases',
        chunks(fences).map((f) => s.renew(f, leaseMs)),
      );
      return asGiven(fences, owned);
    },
    async release(fences: readonly Fence[]) {
      if (fences.length === 0) return new Set();
      const now = clock.now();
      const owned = await calls.ids(
        'release outbox rows',
        chunks(fences).map((f) => s.release(f, now)),
      );
      return asGiven(fences, owned);
    },
  };
}
