import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  RetentionConfig,
  RetentionPolicyConfig,
  RetentionStore,
  RetentionTable,
} from '@queuebox/core';
import { createOutboxMetrics } from '../metrics/outbox-metrics.js';
import { RecordingLogger, until } from '@queuebox/testing';
import { RetentionService } from './retention-service.js';

interface Call {
  readonly kind: 'age' | 'count';
  readonly table: RetentionTable;
  readonly state: string;
  readonly cutoff?: Date;
  readonly keep?: number;
  readonly batchSize: number;
  readonly at: number;
  readonly deleted: number;
}

/** A fake RetentionStore over per-(table, state) row counts: AGE deletes "old" rows, COUNT the surplus. */
class FakeRetentionStore implements RetentionStore {
  readonly calls: Call[] = [];
  readonly old = new Map<string, number>();
  readonly total = new Map<string, number>();
  failures: (Error | undefined)[] = [];
  hang = false;

  deleteOlderThan(
    table: RetentionTable,
    state: string,
    cutoff: Date,
    batchSize: number,
  ): Promise<number> {
    return this.take({ kind: 'age', table, state, cutoff, batchSize }, () => {
      const left = this.old.get(`${table}.${state}`) ?? 0;
      const deleted = Math.min(left, batchSize);
      this.old.set(`${table}.${state}`, left - deleted);
      return deleted;
    });
  }

  deleteBeyondCount(
    table: 'outbox',
    state: string,
    keep: number,
    batchSize: number,
  ): Promise<number> {
    return this.take({ kind: 'count', table, state, keep, batchSize }, () => {
      const rows = this.total.get(`${table}.${state}`) ?? 0;
      const deleted = Math.min(Math.max(0, rows - keep), batchSize);
      this.total.set(`${table}.${state}`, rows - deleted);
      return deleted;
    });
  }

  private take(call: Omit<Call, 'at' | 'deleted'>, run: () => number): Promise<number> {
    if (this.hang) return new Promise<number>(() => undefined);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      this.calls.push({ ...call, at: performance.now(), deleted: 0 });
      return Promise.reject(failure);
    }
    const deleted = run();
    this.calls.push({ ...call, at: performance.now(), deleted });
    return Promise.resolve(deleted);
  }
}

const NOW = new Date('2024-05-01T12:00:00.000Z');
const HOUR = 3_600_000;

function policy(overrides: Partial<RetentionPolicyConfig>): RetentionPolicyConfig {
  return {
    policy: 'DISABLED',
    maxAgeMs: null,
    maxCount: null,
    cleanupIntervalMs: HOUR,
    batchSize: 100,
    ...overrides,
  };
}

let service: RetentionService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

function setup(
  outbox: Partial<RetentionPolicyConfig>,
  inbox: Partial<RetentionPolicyConfig> = {},
  enabled = true,
) {
  const store = new FakeRetentionStore();
  const registry = new Registry();
  const metrics = createOutboxMetrics(registry);
  const logger = new RecordingLogger();
  const config: RetentionConfig = { enabled, outbox: policy(outbox), inbox: policy(inbox) };
  service = new RetentionService(config, {
    store,
    metrics: metrics.retention,
    logger,
    clock: { now: () => NOW },
  });
  const value = async (name: string, table: string, suffix = ''): Promise<number | undefined> => {
    const { values } = await registry.getSingleMetric(name)!.get();
    return values.find(
      (v) =>
        v.labels.table === table &&
        (suffix === '' || (v as { metricName?: string }).metricName === name + suffix),
    )?.value;
  };
  return { store, logger, service, value };
}

describe('RetentionService (spec §17.4)', () => {
  it('deletes old sent then dead outbox rows in batches while a batch comes back full', async () => {
    const { store, service, value } = setup({
      policy: 'AGE',
      maxAgeMs: 7 * 24 * HOUR,
      batchSize: 100,
    });
    store.old.set('outbox.sent', 250);
    store.old.set('outbox.dead', 100);
    expect(await service.runOnce('outbox')).toBe(350);
    expect(store.calls.map((c) => `${c.state}:${c.deleted}`)).toEqual([
      'sent:100',
      'sent:100',
      'sent:50',
      'dead:100',
      'dead:0',
    ]);
    const cutoff = new Date(NOW.getTime() - 7 * 24 * HOUR);
    expect(
      store.calls.every(
        (c) => c.kind === 'age' && c.cutoff?.getTime() === cutoff.getTime() && c.batchSize === 100,
      ),
    ).toBe(true);
    expect(await value('queuebox_cleanup_messages_deleted_total', 'outbox')).toBe(350);
    expect(await value('queuebox_cleanup_last_run_timestamp', 'outbox')).toBe(NOW.getTime() / 1000);
    expect(await value('queuebox_cleanup_duration_seconds', 'outbox', '_count')).toBe(1);
    expect(await value('queuebox_cleanup_duration_seconds_max', 'outbox')).toBeGreaterThanOrEqual(
      0,
    );
  });

  it('pauses 10 ms between full batches only', async () => {
    const { store, service } = setup({ policy: 'AGE', maxAgeMs: HOUR, batchSize: 10 });
    store.old.set('outbox.sent', 30);
    await service.runOnce('outbox');
    const sent = store.calls.filter((c) => c.state === 'sent');
    expect(sent.map((c) => c.deleted)).toEqual([10, 10, 10, 0]);
    for (let i = 1; i < sent.length; i++)
      expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(9);
  });

  it('uses processed and dead for the inbox AGE policy', async () => {
    const { store, service, value } = setup({}, { policy: 'AGE', maxAgeMs: HOUR, batchSize: 100 });
    store.old.set('inbox.processed', 5);
    store.old.set('inbox.dead', 2);
    expect(await service.runOnce('inbox')).toBe(7);
    expect(store.calls.map((c) => `${c.table}.${c.state}`)).toEqual([
      'inbox.processed',
      'inbox.dead',
    ]);
    expect(await value('queuebox_cleanup_messages_deleted_total', 'inbox')).toBe(7);
  });

  it('keeps maxCount rows of EACH outbox state under the COUNT policy', async () => {
    const { store, service } = setup({ policy: 'COUNT', maxCount: 100, batchSize: 30 });
    store.total.set('outbox.sent', 150);
    store.total.set('outbox.dead', 120);
    expect(await service.runOnce('outbox')).toBe(70);
    expect(store.calls.map((c) => `${c.state}:${c.keep}:${c.deleted}`)).toEqual([
      'sent:100:30',
      'sent:100:20',
      'dead:100:20',
    ]);
    expect(store.total.get('outbox.sent')).toBe(100);
    expect(store.total.get('outbox.dead')).toBe(100);
  });

  it('logs a failing run without moving the last-run time, counts what it deleted, and keeps looping', async () => {
    const { store, logger, service, value } = setup({
      policy: 'AGE',
      maxAgeMs: HOUR,
      batchSize: 10,
      cleanupIntervalMs: 50,
    });
    store.old.set('outbox.sent', 15);
    store.failures = [
      undefined,
      new Error('canceling statement due to statement timeout password=x'),
    ];
    service.start();
    await until(() => store.calls.filter((c) => c.deleted > 0).length >= 2, 2_000, 'the next run');
    expect(logger.messages('error')).toEqual([
      'The outbox retention cleanup failed. The next run retries in 50 ms. Reason: Error: canceling statement due to statement timeout password=[REDACTED]',
    ]);
    expect(service.running).toBe(true);
    expect(await value('queuebox_cleanup_messages_deleted_total', 'outbox')).toBe(15);
    expect(await value('queuebox_cleanup_last_run_timestamp', 'outbox')).toBe(NOW.getTime() / 1000);
  });

  it('runs at once and then every cleanupInterval, one loop per enabled table', async () => {
    const { store, service } = setup(
      { policy: 'AGE', maxAgeMs: HOUR, cleanupIntervalMs: 100 },
      { policy: 'DISABLED' },
    );
    service.start();
    await until(() => store.calls.length >= 2);
    const first = store.calls[0]!.at;
    await new Promise((resolve) => setTimeout(resolve, 330));
    const runs = store.calls.filter((c) => c.state === 'sent');
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeLessThanOrEqual(5);
    expect(runs[1]!.at - first).toBeGreaterThanOrEqual(95);
    expect(store.calls.every((c) => c.table === 'outbox')).toBe(true);
  });

  it('does nothing when retention is disabled', async () => {
    const { store, service } = setup({ policy: 'AGE', maxAgeMs: HOUR }, {}, false);
    service.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(store.calls).toEqual([]);
    expect(service.running).toBe(false);
  });

  it('stops quickly between runs', async () => {
    const { service } = setup({ policy: 'AGE', maxAgeMs: HOUR }, { policy: 'AGE', maxAgeMs: HOUR });
    service.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    await service.close();
    expect(performance.now() - started).toBeLessThan(100);
    expect(service.running).toBe(false);
  });

  it('gives up waiting after 1500 ms when a delete hangs', async () => {
    const { store, logger, service } = setup({ policy: 'AGE', maxAgeMs: HOUR });
    store.hang = true;
    service.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    await service.close();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1_450);
    expect(elapsed).toBeLessThan(1_700);
    expect(logger.messages('warn')).toHaveLength(1);
  });

  it('refuses an inbox COUNT policy at run time', async () => {
    const { store, logger, service } = setup({}, { policy: 'COUNT', maxCount: 10 });
    expect(await service.runOnce('inbox')).toBe(0);
    expect(store.calls).toEqual([]);
    expect(logger.messages('error')[0]).toContain('The inbox has no COUNT retention policy');
  });
});
