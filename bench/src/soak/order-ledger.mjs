/**
 * Deliveries, duplicates and order: what one receiver saw, per message id and per key.
 *
 * Every payload carries its key (outbox `key`, webhook aggregate id) and `seq`, that key's 1, 2,
 * 3, ... in the order the application inserted (outbox) or the client posted, each after the
 * previous was stored (webhooks). A message's identity is its outbox row id (HTTP X-Message-Id,
 * AMQP message_id) or, for a webhook, its own id in the payload. At each receiver the first
 * accepted delivery (HTTP 2xx, AMQP ack) of an identity is its delivery, and any later accepted
 * delivery of it is a duplicate. Per key, the deliveries must run seq 1, 2, 3, ... without a step
 * back or a gap (a row of a key is never claimable before the previous one is done); a duplicate
 * repeats an earlier seq of its key (a redelivery of an older message) and is not an order
 * violation (one ahead of its key would be). A refused attempt (503) is no delivery. How many
 * duplicates the soak allows: verdict.mjs.
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
