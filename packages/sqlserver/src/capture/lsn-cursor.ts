import type { ChangeKind } from '@queuebox/core';

/**
 * A log sequence number as `CONVERT(VARCHAR(22), lsn, 1)` writes it: `0x` and 20 hex digits.
 * Fixed width, so once the letters share a case, text order is LSN order.
 */
export type Lsn = string;

const LSN_TEXT = /^0x[0-9A-F]{20}$/;
/** What fn_cdc_get_min_lsn returns for a capture instance that does not exist (any more). */
export const ZERO_LSN: Lsn = `0x${'0'.repeat(20)}`;

export function lsnOf(text: unknown): Lsn | null {
  if (typeof text !== 'string') return null;
  const upper = text.toUpperCase().replace(/^0X/, '0x');
  if (!LSN_TEXT.test(upper)) throw new Error(`Not an LSN: ${text}`);
  return upper;
}

export function compareLsn(a: Lsn, b: Lsn): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One poll of the change table (see `captureSql.poll`). */
export interface PollResult {
  /** The capture job's highest LSN when the poll ran; null while the job has written nothing. */
  readonly upto: Lsn | null;
  /** The lowest LSN the capture instance still holds; ZERO_LSN when the instance is gone. */
  readonly minLsn: Lsn | null;
  /** Changes after the cursor up to `upto`, counted per `__$operation`. */
  readonly operations: readonly { readonly operation: number; readonly changes: number }[];
}

/** `__$operation` of a CDC change row. */
const KIND_OF: Readonly<Record<number, ChangeKind>> = {
  1: 'delete',
  2: 'insert',
  3: 'update',
  4: 'update',
};

export class CaptureInstanceGone extends Error {
  constructor(captureInstance: string) {
    super(
      `The capture instance ${captureInstance} of the outbox table no longer exists (change data capture was disabled on the table, or the instance was dropped).`,
    );
  }
}

/**
 * The LSN bookkeeping of the change-table poll. The cursor starts at the capture job's highest
 * LSN when the stream opens (changes before that need no wake: every capture run starts with
 * one) and moves to each poll's `upto`, so a change is counted by exactly one poll. Capture only
 * wakes, so where the bookkeeping cannot be sure, it reports `unreadable`, which wakes:
 * - the LSNs went backwards (the database was restored, or CDC was disabled and enabled again);
 * - cleanup removed changes the cursor had not reached (the instance's lowest LSN is past it);
 * - an operation this code does not know (5, a merge, comes only with net changes).
 */
export class LsnCursor {
  constructor(
    private last: Lsn,
    private readonly captureInstance: string,
  ) {}

  get position(): Lsn {
    return this.last;
  }

  /** The change kinds one poll saw, each once: the wake they cause is conflated anyway. */
  apply(poll: PollResult): ChangeKind[] {
    if (poll.minLsn === ZERO_LSN) throw new CaptureInstanceGone(this.captureInstance);
    if (poll.upto === null) return [];
    const kinds = new Set<ChangeKind>();
    const order = compareLsn(poll.upto, this.last);
    if (order < 0) kinds.add('unreadable');
    else if (poll.minLsn !== null && compareLsn(poll.minLsn, this.last) > 0 && order > 0) {
      // Changes in (last, minLsn) may have been cleaned up before this poll saw them.
      kinds.add('unreadable');
    }
    for (const { operation, changes } of poll.operations) {
      if (changes > 0) kinds.add(KIND_OF[operation] ?? 'unreadable');
    }
    this.last = poll.upto;
    return [...kinds];
  }
}
