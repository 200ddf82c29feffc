import { Gauge, Summary, type Registry } from './prom.js';
import { TimeWindowHistogram } from './time-window-histogram.js';
import { TimeWindowMax } from './time-window-max.js';

/**
 * A timer shaped like the reference's Micrometer timers in the Prometheus scrape (spec §14):
 * a summary `<name>` with quantiles 0.5/0.95/0.99 over a decaying window plus `_count`/`_sum`,
 * and a separate gauge family `<name>_max` holding the largest value of the current window.
 * prom-client has no `_max`, and dashboards and alerts built on 0.8.1 read it, so it is emulated
 * here rather than dropped (spec §20 item 17).
 */
export type TimerLabels<L extends string> = Partial<Record<L, string>>;

export interface MicrometerTimer<L extends string = string> {
  /** Records one duration, in seconds. */
  observe(seconds: number, labels?: TimerLabels<L>): void;
  /** Starts a measurement; calling the result records the elapsed seconds and returns them. */
  startTimer(labels?: TimerLabels<L>): () => number;
  /** The series of these labels, found once: for a caller that times it per message. */
  child(labels: TimerLabels<L>): Omit<MicrometerTimer<never>, 'child'>;
}

export interface MicrometerTimerOptions<L extends string> {
  /** The summary's name, e.g. `queuebox_outbox_processing_duration_seconds`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
  /** Micrometer's `distributionStatisticExpiry` (default 2 minutes). */
  readonly maxAgeSeconds?: number;
  /** Micrometer's `distributionStatisticBufferLength` (default 3). */
  readonly ageBuckets?: number;
  /** Milliseconds clock for the `_max` window; tests pin it. */
  readonly nowMs?: () => number;
}

export const TIMER_PERCENTILES: readonly number[] = [0.5, 0.95, 0.99];
const DEFAULT_MAX_AGE_SECONDS = 120;
const DEFAULT_AGE_BUCKETS = 3;

export function createMicrometerTimer<L extends string = never>(
  registry: Registry,
  options: MicrometerTimerOptions<L>,
): MicrometerTimer<L> {
  const labelNames = [...(options.labelNames ?? [])];
  const maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  const ageBuckets = options.ageBuckets ?? DEFAULT_AGE_BUCKETS;
  const nowMs = options.nowMs ?? Date.now;
  const expiryMs = maxAgeSeconds * 1000;
  // One series per label set, read by both families: the summary and its `_max` gauge. A
  // labelled series appears on first use; the label-less one exists from the start (it shows 0,
  // as Micrometer does).
  const series = new SeriesTable<L>(
    labelNames,
    () => new TimeWindowHistogram(nowMs, expiryMs, ageBuckets),
    () => new TimeWindowMax(nowMs, expiryMs, ageBuckets),
  );
  if (labelNames.length === 0) series.get({});
  new WindowedSummary<L>(
    {
      name: options.name,
      help: options.help,
      labelNames,
      percentiles: [...TIMER_PERCENTILES],
      registers: [registry],
    },
    series,
  );
  new Gauge<L>({
    name: `${options.name}_max`,
    help: options.help,
    labelNames,
    registers: [registry],
    // Read at scrape time so the value decays even when nothing is recorded any more.
    collect(this: Gauge<L>) {
      for (const { labels, max } of series.all()) this.set(labels, max.poll());
    },
  });

  const unlabelledSeries = labelNames.length === 0 ? series.get({}) : null;
  const unlabelled = unlabelledSeries === null ? null : timerOf(() => unlabelledSeries);
  return {
    observe(seconds, labels = {}) {
      record(series.get(labels), seconds);
    },
    startTimer(labels = {}) {
      // The label-less series is found once, at creation, not per measurement.
      return (unlabelled ?? timerOf(() => series.get(labels))).startTimer();
    },
    child(labels) {
      // Found on first use, not here: a labelled series appears in the scrape once used.
      let one: Series<L> | null = null;
      return timerOf(() => (one ??= series.get(labels)));
    },
  };
}

function record<L extends string>(one: Series<L>, seconds: number): void {
  one.histogram.record(seconds);
  one.max.record(seconds);
  one.count++;
  one.sum += seconds;
}

/** The timer of one series, which `find` returns. */
function timerOf<L extends string>(find: () => Series<L>): Omit<MicrometerTimer<never>, 'child'> {
  return {
    observe(seconds) {
      record(find(), seconds);
    },
    startTimer() {
      const started = performance.now();
      return () => {
        const seconds = (performance.now() - started) / 1000;
        record(find(), seconds);
        return seconds;
      };
    },
  };
}

function labelKey(names: readonly string[], labels: Record<string, string | undefined>): string {
  let key = '';
  for (const name of names) key += `${labels[name] ?? ''}\u0000`;
  return key;
}

interface Series<L extends string> {
  readonly labels: TimerLabels<L>;
  histogram: TimeWindowHistogram;
  readonly max: TimeWindowMax;
  count: number;
  sum: number;
}

class SeriesTable<L extends string> {
  private readonly byKey = new Map<string, Series<L>>();

  constructor(
    private readonly labelNames: readonly string[],
    readonly newHistogram: () => TimeWindowHistogram,
    private readonly newMax: () => TimeWindowMax,
  ) {}

  get(labels: TimerLabels<L>): Series<L> {
    const key = labelKey(this.labelNames, labels);
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = { labels, histogram: this.newHistogram(), max: this.newMax(), count: 0, sum: 0 };
      this.byKey.set(key, series);
    }
    return series;
  }

  all(): IterableIterator<Series<L>> {
    return this.byKey.values();
  }
}

/**
 * prom-client's Summary keeps a t-digest per age bucket and inserts every sample into each of them;
 * at two timers per message that was a visible share of the outbox's CPU. This one registers and
 * prints exactly like a Summary (type, quantile lines, `_sum`, `_count`, 0 for an empty window) but
 * reads the timer's series, whose quantiles come from a TimeWindowHistogram.
 */
class WindowedSummary<L extends string> extends Summary<L> {
  private readonly family: { readonly name: string; readonly help: string };

  constructor(
    configuration: ConstructorParameters<typeof Summary<L>>[0],
    // Optional only for the base constructor, which calls reset() before this is assigned.
    private readonly series?: SeriesTable<L>,
  ) {
    super(configuration);
    this.family = { name: configuration.name, help: configuration.help };
  }

  override observe(): void {
    throw new Error('record through the MicrometerTimer');
  }

  override get(): ReturnType<Summary<L>['get']> {
    const values = [];
    for (const { labels, histogram, count, sum } of this.series?.all() ?? []) {
      const quantiles = histogram.quantiles(TIMER_PERCENTILES);
      TIMER_PERCENTILES.forEach((quantile, i) => {
        values.push({ labels: { quantile, ...labels }, value: quantiles[i] ?? 0 });
      });
      values.push({ metricName: `${this.family.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.family.name}_count`, labels, value: count });
    }
    return Promise.resolve({
      name: this.family.name,
      help: this.family.help,
      type: 'summary',
      values,
      aggregator: 'sum',
    }) as unknown as ReturnType<Summary<L>['get']>;
  }

  /** Like prom-client's: every series stays, at 0 (the `_max` window is the gauge's own). */
  override reset(): void {
    const table = this.series;
    if (table === undefined) return;
    for (const series of table.all()) {
      series.histogram = table.newHistogram();
      series.count = 0;
      series.sum = 0;
    }
  }
}
