import type { Clock, OutboxStore } from '@queuebox/core';
import type { OutboxCalls, OutboxStatements } from './outbox-calls.js';

/** The poller's housekeeping (spec §4.1): the reclaim step, the gauges and the next wake-up. */
export function createMaintenance(
  calls: OutboxCalls,
  s: OutboxStatements,
  clock: Clock,
): Pick<OutboxStore, 'reclaimExpired' | 'gauges' | 'nextWakeDelayMs'> {
  return {
    async reclaimExpired() {
      return (await calls.run('reclaim outbox rows', s.reclaim(clock.now()))).rowCount;
    },
    async gauges() {
      const [row] = (
        await calls.run<{ pending: number; ageMs: number | string | null }>(
          'read the outbox gauges',
          s.gauges(clock.now()),
        )
      ).rows;
      const ageMs = row?.ageMs === null || row?.ageMs === undefined ? 0 : Number(row.ageMs);
      return {
        pending: Number(row?.pending ?? 0),
        oldestPendingAgeSeconds: Math.max(ageMs, 0) / 1000,
      };
    },
    async nextWakeDelayMs(maxMs: number) {
      try {
        const [row] = (
          await calls.run<{ scheduleMs: number | string | null; leaseMs: number | string | null }>(
            'read the next outbox deadline',
            s.nextWake(clock.now()),
          )
        ).rows;
        const deadlines = [row?.scheduleMs, row?.leaseMs].flatMap((v) =>
          v === null || v === undefined ? [] : [Number(v)],
        );
        const nearest = deadlines.length === 0 ? maxMs : Math.min(...deadlines);
        return Math.min(Math.max(Math.ceil(nearest), 1), maxMs);
      } catch {
        return maxMs;
      }
    },
  };
}
