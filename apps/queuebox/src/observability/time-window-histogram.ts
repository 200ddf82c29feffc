import { RotationClock } from './rotation-clock.js';

/**
 * The decaying percentiles behind a Micrometer timer's quantiles: log-scaled buckets (each about
 * 1.6 % wide, like the 2 significant digits of the HdrHistogram Micrometer uses) in a ring of
 * `bufferLength` slots; a sample goes into the newest slot, one slot is cleared every
 * `expiryMs / bufferLength`, and a read merges the live slots. So a sample counts for between
 * `expiry - expiry/bufferLength` and `expiry`, as in Micrometer's TimeWindowPercentileHistogram.
 *
 * Recording is an increment (no tree, no compression): the timers record twice per message.
 * A quantile is the geometric middle of its bucket, kept within the smallest and largest sample
 * of the window, so a window of one sample reports that sample exactly.
 */

/** Smallest value told apart from 0 (1 µs when recording seconds). */
const MIN_VALUE = 1e-6;
const GROWTH = 1 + 1 / 64;
const LOG_GROWTH = Math.log(GROWTH);
/** Buckets up to about 1.1e5 (a day and more in seconds); larger samples share the last. */
const BUCKETS = 1 + Math.ceil(Math.log(1e11) / LOG_GROWTH);

class Slot {
  readonly counts = new Uint32Array(BUCKETS);
  total = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  clear(): void {
    if (this.total === 0) return;
    this.counts.fill(0);
    this.total = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
  }
}

function bucketOf(value: number): number {
  if (!(value > MIN_VALUE)) return 0;
  return Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(value / MIN_VALUE) / LOG_GROWTH));
}

function valueOf(bucket: number): number {
  return bucket === 0 ? MIN_VALUE : MIN_VALUE * GROWTH ** (bucket - 0.5);
}

export class TimeWindowHistogram {
  private readonly ring: Slot[];
  private readonly clock: RotationClock;
  private current = 0;

  constructor(now: () => number, expiryMs: number, bufferLength: number) {
    this.clock = new RotationClock(now, expiryMs, bufferLength);
    this.ring = Array.from({ length: this.clock.length }, () => new Slot());
  }

  record(value: number): void {
    this.rotate();
    const slot = this.ring[this.current]!;
    const bucket = bucketOf(value);
    slot.counts[bucket]! += 1;
    slot.total += 1;
    if (value < slot.min) slot.min = value;
    if (value > slot.max) slot.max = value;
  }

  /** The value at each quantile (0..1) over the window; 0 for every quantile when it is empty. */
  quantiles(qs: readonly number[]): number[] {
    this.rotate();
    let total = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const slot of this.ring) {
      total += slot.total;
      min = Math.min(min, slot.min);
      max = Math.max(max, slot.max);
    }
    if (total === 0) return qs.map(() => 0);
    const merged = new Float64Array(BUCKETS);
    for (const slot of this.ring) {
      if (slot.total === 0) continue;
      for (let b = 0; b < BUCKETS; b++) merged[b]! += slot.counts[b]!;
    }
    return qs.map((q) => {
      const rank = Math.max(1, Math.ceil(q * total));
      let seen = 0;
      for (let b = 0; b < BUCKETS; b++) {
        seen += merged[b]!;
        // The last bucket holds everything beyond the scale: its largest sample says more.
        if (seen >= rank) return b === BUCKETS - 1 ? max : Math.min(max, Math.max(min, valueOf(b)));
      }
      return max;
    });
  }

  private rotate(): void {
    const turns = this.clock.due();
    if (turns >= this.ring.length) {
      for (const slot of this.ring) slot.clear();
      return;
    }
    for (let turn = 0; turn < turns; turn++) {
      this.current = (this.current + 1) % this.ring.length;
      this.ring[this.current]!.clear();
    }
  }
}
