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
  private readonly rotateEveryMs: number;
  private current = 0;
  private lastRotateMs: number;

  constructor(
    private readonly now: () => number,
    private readonly expiryMs: number,
    bufferLength: number,
  ) {
    const length = Math.max(1, Math.floor(bufferLength));
    this.ring = new Array<number>(length).fill(0);
    this.rotateEveryMs = Math.max(1, expiryMs / length);
    this.lastRotateMs = now();
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
    let elapsed = this.now() - this.lastRotateMs;
    if (elapsed < this.rotateEveryMs) return;
    if (elapsed >= this.expiryMs) {
      this.ring.fill(0);
      this.current = 0;
      this.lastRotateMs = this.now() - (elapsed % this.rotateEveryMs);
      return;
    }
    let iterations = 0;
    do {
      this.ring[this.current] = 0;
      this.current = (this.current + 1) % this.ring.length;
      elapsed -= this.rotateEveryMs;
      this.lastRotateMs += this.rotateEveryMs;
    } while (elapsed >= this.rotateEveryMs && ++iterations < this.ring.length);
  }
}
