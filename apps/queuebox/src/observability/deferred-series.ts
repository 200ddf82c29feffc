import { Counter, Gauge, type Registry } from './prom.js';

/**
 * Labelled counters and gauges that the outbox touches for every message, counted in plain
 * numbers and handed to prom-client when a scrape collects them. prom-client validates and
 * hashes the label set on every `inc` and `dec` (a visible cost per delivered message for the
 * three per-message families); here a call adds to a number found by
 * the label values. The scrape shows the same series and values: a series appears once used,
 * as with prom-client.
 */
export interface DeferredOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly registers: Registry[];
}

type Labels<L extends string> = Readonly<Record<L, string>>;

interface Entry<L extends string> {
  readonly labels: Labels<L>;
  /** Counter: added since the last scrape. Gauge: the value. */
  value: number;
}

class SeriesByLabels<L extends string> {
  readonly #names: readonly L[];
  readonly #byKey = new Map<string, Entry<L>>();

  constructor(names: readonly L[]) {
    this.#names = names;
  }

  entry(labels: Labels<L>): Entry<L> {
    // Each value prefixed with its length: no two label sets share a key, whatever they hold.
    let key = '';
    for (const name of this.#names) {
      const value = labels[name];
      key += `${value.length}:${value}`;
    }
    let entry = this.#byKey.get(key);
    if (entry === undefined) {
      entry = { labels: { ...labels }, value: 0 };
      this.#byKey.set(key, entry);
    }
    return entry;
  }

  all(): IterableIterator<Entry<L>> {
    return this.#byKey.values();
  }
}

export interface DeferredCounter<L extends string> {
  inc(labels: Labels<L>, amount?: number): void;
  /** The series of these labels, found once: its `inc` adds to a number and nothing else. */
  child(labels: Labels<L>): { inc(amount?: number): void };
}

export function deferredCounter<L extends string>(options: DeferredOptions<L>): DeferredCounter<L> {
  const series = new SeriesByLabels(options.labelNames);
  new Counter<L>({
    ...options,
    labelNames: [...options.labelNames],
    collect(this: Counter<L>) {
      for (const entry of series.all()) {
        // inc(0) makes a series that was used but not since the last scrape show all the same.
        this.inc(entry.labels, entry.value);
        entry.value = 0;
      }
    },
  });
  return {
    inc(labels, amount = 1) {
      series.entry(labels).value += amount;
    },
    child(labels) {
      // Found on first use, not here: a series appears in the scrape once used.
      let entry: Entry<L> | null = null;
      return {
        inc(amount = 1) {
          entry ??= series.entry(labels);
          entry.value += amount;
        },
      };
    },
  };
}

export interface DeferredGauge<L extends string> {
  set(labels: Labels<L>, value: number): void;
  inc(labels: Labels<L>, amount?: number): void;
  dec(labels: Labels<L>, amount?: number): void;
  /** The series of these labels, found once. */
  child(labels: Labels<L>): {
    set(value: number): void;
    inc(amount?: number): void;
    dec(amount?: number): void;
  };
}

export function deferredGauge<L extends string>(options: DeferredOptions<L>): DeferredGauge<L> {
  const series = new SeriesByLabels(options.labelNames);
  new Gauge<L>({
    ...options,
    labelNames: [...options.labelNames],
    collect(this: Gauge<L>) {
      for (const entry of series.all()) this.set(entry.labels, entry.value);
    },
  });
  return {
    set(labels, value) {
      series.entry(labels).value = value;
    },
    inc(labels, amount = 1) {
      series.entry(labels).value += amount;
    },
    dec(labels, amount = 1) {
      series.entry(labels).value -= amount;
    },
    child(labels) {
      // Found on first use, not here: a series appears in the scrape once used.
      let entry: Entry<L> | null = null;
      const found = (): Entry<L> => (entry ??= series.entry(labels));
      return {
        set(value) {
          found().value = value;
        },
        inc(amount = 1) {
          found().value += amount;
        },
        dec(amount = 1) {
          found().value -= amount;
        },
      };
    },
  };
}
