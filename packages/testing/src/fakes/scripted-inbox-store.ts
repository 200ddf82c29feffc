import type { Fence, InboxStore, RelayClaimedMessage, RelayForward } from '@queuebox/core';

/**
 * An InboxStore for the relay's unit tests: its claims come from a script, and its writes are
 * recorded and answered by hooks. Ownership rules are the store's SQL, tested on PostgreSQL; here
 * the store only answers what a test needs.
 */
export function scriptedInboxStore(claims: (RelayClaimedMessage[] | Error)[] = []) {
  const forwards: RelayForward[][] = [];
  const deadMarks: Fence[][] = [];
  const renewals: Fence[][] = [];
  let reclaims = 0;
  let gauges = 0;
  const hooks = {
    forward: (batch: readonly RelayForward[]): Promise<Set<string>> =>
      Promise.resolve(new Set(batch.map((f) => f.fence.id))),
    renew: (fences: readonly Fence[]): Promise<Set<string>> =>
      Promise.resolve(new Set(fences.map((f) => f.id))),
    age: 12.5,
    markDeadFails: false,
  };
  const events: string[] = [];
  /** `performance.now()` as each claim began: backoff tests measure the pauses between. */
  const claimTimes: number[] = [];
  const store: InboxStore = {
    store: () => Promise.reject(new Error('not used')),
    claimForRelay: () => {
      claimTimes.push(performance.now());
      const next = claims.shift() ?? [];
      events.push(next instanceof Error ? 'claim:error' : `claim:${next.length}`);
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    forward: async (batch) => {
      forwards.push([...batch]);
      events.push(`forward:${batch.length}`);
      try {
        return await hooks.forward(batch);
      } finally {
        events.push(`forwarded:${batch.length}`);
      }
    },
    markDead: (fences) => {
      deadMarks.push([...fences]);
      if (hooks.markDeadFails) return Promise.reject(new Error('markDead failed'));
      return Promise.resolve(
        new Set(fences.filter((f) => !f.claimToken.startsWith('stale')).map((f) => f.id)),
      );
    },
    renew: (fences) => {
      renewals.push([...fences]);
      return hooks.renew(fences);
    },
    reclaimExpired: () => Promise.resolve(++reclaims && 0),
    oldestPendingAgeSeconds: () => Promise.resolve(++gauges && hooks.age),
  };
  return {
    store,
    claims,
    events,
    claimTimes,
    forwards,
    deadMarks,
    renewals,
    hooks,
    reclaims: () => reclaims,
    gauges: () => gauges,
  };
}
