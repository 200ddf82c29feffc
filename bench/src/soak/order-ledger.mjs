/**
 * What one receiver saw, per message id and per key, under the soak's rules (see run.mjs):
 * the FIRST accepted delivery of each message id is its delivery; a later accepted delivery of
 * the same id is a duplicate. Per key, first deliveries must carry seq 1, 2, 3, ... with no step
 * back and no gap (a row of a key is never claimable before the previous one is done). A
 * duplicate is not an order violation as long as it repeats a seq the key already had (a
 * redelivery of an older message); a "duplicate" carrying a seq ahead of the key is one.
 */
export class OrderLedger {
  constructor(name) {
    this.name = name;
    this.seen = new Set();
    this.lastSeq = new Map();
    this.deliveries = 0;
    this.duplicates = 0;
    this.violations = 0;
    this.samples = [];
  }

  /** One accepted delivery (the receiver answered 2xx / acked it). */
  accept(id, key, seq) {
    this.deliveries += 1;
    const last = this.lastSeq.get(key) ?? 0;
    if (this.seen.has(id)) {
      this.duplicates += 1;
      if (seq > last) this.violation(key, last, seq, 'duplicate ahead of its key');
      return;
    }
    this.seen.add(id);
    if (seq !== last + 1) this.violation(key, last, seq, seq <= last ? 'backwards' : 'gap');
    if (seq > last) this.lastSeq.set(key, seq);
  }

  violation(key, last, seq, kind) {
    this.violations += 1;
    if (this.samples.length < 10) this.samples.push({ key, last, seq, kind });
  }

  summary() {
    return {
      receiver: this.name,
      unique: this.seen.size,
      deliveries: this.deliveries,
      duplicates: this.duplicates,
      keys: this.lastSeq.size,
      violations: this.violations,
      violationSamples: this.samples,
    };
  }
}
