/**
 * core's Metrics port in memory, for service tests: every handle records its series by label
 * values and reads them back, so a test asserts what a service counted without a Prometheus
 * registry (only the app owns the Prometheus client; its families are pinned by the app's
 * scrape test).
 */
import type { LabelValues, Metrics } from '@queuebox/core';

/** One series per label set; the key ignores label order. */
function keyOf(labels: LabelValues = {}): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

/** One series of a handle: its label values and its current value. */
export interface MemorySeries {
  readonly labels: LabelValues;
  readonly value: number;
}

class SeriesMap {
  private readonly values = new Map<string, { labels: LabelValues; value: number }>();

  add(labels: LabelValues | undefined, amount: number): void {
    this.set(labels, this.get(labels) + amount);
  }

  set(labels: LabelValues | undefined, value: number): void {
    this.values.set(keyOf(labels), { labels: { ...labels }, value });
  }

  get(labels?: LabelValues): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }

  has(labels?: LabelValues): boolean {
    return this.values.has(keyOf(labels));
  }

  all(): MemorySeries[] {
    return [...this.values.values()].map(({ labels, value }) => ({ labels, value }));
  }
}

/** A counter with or without labels: `inc(amount?)` or `inc(labels, amount?)`. */
export class MemoryCounter {
  private readonly values = new SeriesMap();

  inc(labelsOrAmount?: LabelValues | number, amount?: number): void {
    if (typeof labelsOrAmount === 'object') {
      if (amount !== undefined && amount < 0) throw new Error('a counter only goes up');
      this.values.add(labelsOrAmount, amount ?? 1);
      return;
    }
    if (labelsOrAmount !== undefined && labelsOrAmount < 0)
      throw new Error('a counter only goes up');
    this.values.add(undefined, labelsOrAmount ?? 1);
  }

  /** The series of these labels, as a label-less counter (core's `child`). */
  child(labels: LabelValues): { inc(amount?: number): void } {
    return { inc: (amount?: number) => this.inc(labels, amount) };
  }

  /** The series' value; 0 when it was never touched. */
  value(labels?: LabelValues): number {
    return this.values.get(labels);
  }

  /** Whether the series exists (an `inc(labels, 0)` creates it, as in the scrape). */
  has(labels?: LabelValues): boolean {
    return this.values.has(labels);
  }

  /** Every series touched so far, in first-use order. */
  series(): MemorySeries[] {
    return this.values.all();
  }
}

export class MemoryGauge {
  private readonly series = new SeriesMap();

  set(labelsOrValue: LabelValues | number, value?: number): void {
    if (typeof labelsOrValue === 'number') this.series.set(undefined, labelsOrValue);
    else this.series.set(labelsOrValue, value ?? 0);
  }

  inc(labels: LabelValues, amount = 1): void {
    this.series.add(labels, amount);
  }

  dec(labels: LabelValues, amount = 1): void {
    this.series.add(labels, -amount);
  }

  child(labels: LabelValues) {
    return {
      set: (value: number) => this.set(labels, value),
      inc: (amount?: number) => this.inc(labels, amount),
      dec: (amount?: number) => this.dec(labels, amount),
    };
  }

  value(labels?: LabelValues): number {
    return this.series.get(labels);
  }
}

export class MemoryTimer {
  private readonly counts = new SeriesMap();
  private readonly sums = new SeriesMap();
  private readonly maxima = new SeriesMap();

  observe(seconds: number, labels?: LabelValues): void {
    this.counts.add(labels, 1);
    this.sums.add(labels, seconds);
    this.maxima.set(labels, Math.max(this.maxima.get(labels), seconds));
  }

  startTimer(labels?: LabelValues): () => number {
    const started = performance.now();
    return () => {
      const seconds = (performance.now() - started) / 1000;
      this.observe(seconds, labels);
      return seconds;
    };
  }

  child(labels: LabelValues) {
    return {
      observe: (seconds: number) => this.observe(seconds, labels),
      startTimer: () => this.startTimer(labels),
    };
  }

  /** Recorded durations of the series. */
  count(labels?: LabelValues): number {
    return this.counts.get(labels);
  }

  sum(labels?: LabelValues): number {
    return this.sums.get(labels);
  }

  max(labels?: LabelValues): number {
    return this.maxima.get(labels);
  }
}

/**
 * Every bundle of the port, built the way the app builds them: a family two bundles share
 * (`claimsLost` of the poller and the relay, `messages` of the inbox and the relay) is one handle.
 */
export function createMemoryMetrics() {
  const claimsLost = new MemoryCounter();
  const inboxMessages = new MemoryCounter();
  const metrics = {
    outbox: {
      messages: new MemoryCounter(),
      pending: new MemoryGauge(),
      oldestPendingAgeSeconds: new MemoryGauge(),
      reclaimed: new MemoryCounter(),
      claimsLost,
      processErrors: new MemoryCounter(),
      processingDuration: new MemoryTimer(),
      publishDuration: new MemoryTimer(),
      destinationMessages: new MemoryCounter(),
      queueDepth: new MemoryGauge(),
      httpResponses: new MemoryCounter(),
      transformFailures: new MemoryCounter(),
    },
    retention: {
      deleted: new MemoryCounter(),
      duration: new MemoryTimer(),
      lastRunTimestamp: new MemoryGauge(),
    },
    inbox: {
      messages: inboxMessages,
      rejections: new MemoryCounter(),
      filtered: new MemoryCounter(),
    },
    relay: {
      messages: inboxMessages,
      relayErrors: new MemoryCounter(),
      oldestPendingAgeSeconds: new MemoryGauge(),
      claimsLost,
    },
  } satisfies Metrics;
  return metrics;
}

export type MemoryMetrics = ReturnType<typeof createMemoryMetrics>;
