import type { OutboxStore } from '@queuebox/core';
import type { OutboxProbe, OutboxRow, StoreHarness } from './probe.js';
import type { TestClock } from './test-clock.js';

export type OutboxHarness = StoreHarness<OutboxStore, OutboxProbe>;

/** What each case reads when it runs: fresh per case (clock, store), the harness per suite. */
export interface OutboxCase {
  harness: OutboxHarness;
  probe: OutboxProbe;
  clock: TestClock;
  store: OutboxStore;
}

/** Lease of the cases that do not test leases. */
export const LEASE = 30_000;

/** One row by id; fails the case when it is missing. */
export async function outboxRow(t: OutboxCase, id: string): Promise<OutboxRow> {
  const row = (await t.probe.outboxRows()).find((r) => r.id === id);
  if (!row) throw new Error(`no outbox row ${id}`);
  return row;
}
