import { Gauge, Summary, type Registry } from 'prom-client';
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
  const summary = new Summary<L>({
    name: options.name,
    help: options.help,
    labelNames,
    percentiles: [...TIMER_PERCENTILES],
    maxAgeSeconds,
    ageBuckets,
    registers: [registry],
  });
  // One window per label set; a labelled series appears only after its first use, like the
  // summary beside it. The label-less one exists from the start (it shows 0, as Micrometer does).
  const windows = new Map<string, { labels: TimerLabels<L>; max: TimeWindowMax }>();
  const windowFor = (labels: TimerLabels<L>): TimeWindowMax => {
    const key = labelKey(labelNames, labels);
    let entry = windows.get(key);
    if (!entry) {
      entry = { labels, max: new TimeWindowMax(nowMs, maxAgeSeconds * 1000, ageBuckets) };
      windows.set(key, entry);
    }
    return entry.max;
  };
  if (labelNames.length === 0) windowFor({});
  new Gauge<L>({
    name: `${options.name}_max`,
    help: options.help,
    labelNames,
    registers: [registry],
    // Read at scrape time so the value decays even when nothing is recorded any more.
    collect(this: Gauge<L>) {
      for (const { labels, max } of windows.values()) this.set(labels, max.poll());
    },
  });

  const observe = (seconds: number, labels: TimerLabels<L> = {}): void => {
    summary.observe(labels, seconds);
    windowFor(labels).record(seconds);
  };
  return {
    observe,
    startTimer(labels) {
      const started = performance.now();
      return () => {
        const seconds = (performance.now() - started) / 1000;
        observe(seconds, labels);
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
