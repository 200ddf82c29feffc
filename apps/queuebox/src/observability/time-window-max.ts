import { RotationClock } from './rotation-clock.js';

/**
 * The decaying maximum behind a Micrometer timer's `_max` gauge (Micrometer's TimeWindowMax):
 * a ring of `bufferLength` slots that each hold the largest sample since they were last reset;
 * one slot is reset every `expiryMs / bufferLength`, and a read returns the oldest live slot.
 * A spike therefore stays visible for between `expiry - expiry/bufferLength` and `expiry`, then
 * falls back to 0 even when nothing is recorded any more, which is what dashboards built on
 * the reference expect (a cumulative max would never come down).
 */
export class TimeWindowMax {
  private readonly ring: number[];
  private readonly clock: RotationClock;
  private current = 0;

  constructor(now: () => number, expiryMs: number, bufferLength: number) {
    this.clock = new RotationClock(now, expiryMs, bufferLength);
    this.ring = new Array<number>(this.clock.length).fill(0);
  }

  record(value: number): void {
    this.rotate();
    for (let i = 0; i < this.ring.length; i++) {
      if (value > (this.ring[i] ?? 0)) this.ring[i] = value;
    }
  }

  poll(): number {
    this.rotate();
    return this.ring[this.current] ?? 0;
  }

  private rotate(): void {
    const turns = this.clock.due();
    if (turns >= this.ring.length) {
      this.ring.fill(0);
      this.current = 0;
      return;
    }
    for (let turn = 0; turn < turns; turn++) {
      this.ring[this.current] = 0;
      this.current = (this.current + 1) % this.ring.length;
    }
  }
}
