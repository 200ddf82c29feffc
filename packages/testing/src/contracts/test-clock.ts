import type { Clock } from '@queuebox/core';

/**
 * An app clock the contracts move or pin, so a case can tell "app now" (the injected Clock) from
 * "DB now" (spec §3.7) in what the adapter wrote.
 */
export class TestClock implements Clock {
  // JS time has millisecond resolution, the database finer: a row inserted with the table's
  // default timestamp within the same millisecond as the claim would not be due yet. The lead
  // keeps the cases off that boundary; a store rightly claims such a row one poll later.
  private static readonly LEAD_MS = 2;
  private offsetMs = TestClock.LEAD_MS;
  private pinned: Date | null = null;

  now(): Date {
    return this.pinned ?? new Date(Date.now() + this.offsetMs);
  }

  /** Moves the app clock relative to the real (and DB) clock. */
  shift(ms: number): void {
    this.offsetMs += ms;
  }

  pin(at: Date): void {
    this.pinned = at;
  }

  reset(): void {
    this.offsetMs = TestClock.LEAD_MS;
    this.pinned = null;
  }
}

/** An app clock a case sets to one instant. */
export {
  mutableClock as setClock,
  type MutableClock as SetClock,
} from '../fixtures/inbox-message.js';

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

export const idsOf = (rows: readonly { id: string }[]): string[] => rows.map((r) => r.id);
