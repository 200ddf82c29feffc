import { afterEach, describe, expect, it } from 'vitest';
import { delay, FakePublisher, InMemoryOutboxStore, until } from '@queuebox/testing';
import { pollerHarness, type PollerHarness } from '../../test/poller-harness.js';

let h: PollerHarness | undefined;
afterEach(async () => {
  await h?.poller.close();
  h = undefined;
});

const hanging = () =>
  new FakePublisher('http', 'all', (request) =>
    delay(60_000, request.signal).then(() => ({ ok: true })),
  );

describe('OutboxPoller loop and shutdown (spec §4.1, §4.6)', () => {
  it('logs a failing streak once at ERROR, the retries at DEBUG, backs off and keeps going', async () => {
    h = pollerHarness();
    h.store.failNext('claim', new Error('connect ECONNREFUSED password=hunter2'), 3);
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.start();
    await until(() => h!.store.row(id!).state === 'sent', 5_000, 'delivery after the failures');
    const failed =
      'The poll cycle failed. The next cycle retries. Reason: Error: connect ECONNREFUSED password=[REDACTED]';
    expect(h.logger.messages('error')).toEqual([failed]);
    expect(h.logger.messages('debug').filter((m) => m === failed)).toHaveLength(2);
    expect(h.logger.messages('info')).toContain(
      'The poll cycle succeeded again after 3 failure(s).',
    );
    // The pauses doubled from the poll interval: each retry came later than the one before.
    // Measured where the claims began, not where their failures were logged: a line can be
    // written late (the first sanitizing of an error text is slow on a busy machine), which
    // shortened the gap to the next line without the retry coming early.
    const times = h.store.callTimes.claim;
    const pollIntervalMs = h.config.pollIntervalMs;
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(pollIntervalMs - 2);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2 * pollIntervalMs - 2);
    expect(h.poller.running).toBe(true);
  });

  it('waits for in-flight messages to finish within the shutdown timeout', async () => {
    const publisher = new FakePublisher('http', 'all', () => delay(100).then(() => ({ ok: true })));
    h = pollerHarness({ publishers: [publisher] });
    const ids = await h.insert({ topic: 't', payload: {} }, { topic: 't', payload: {} });
    h.poller.start();
    await until(() => publisher.requests.length === 2);
    expect(h.poller.running).toBe(true);
    await h.poller.close();
    expect(h.poller.running).toBe(false);
    for (const id of ids) expect(h.store.row(id).state).toBe('sent');
    expect(h.logger.messages('warn')).toEqual([]);
  });

  it('abandons what is still running after the shutdown timeout with the WARN', async () => {
    const publisher = hanging();
    h = pollerHarness({ publishers: [publisher], config: { shutdownTimeoutMs: 200 } });
    const ids = await h.insert({ topic: 't', payload: {} }, { topic: 't', payload: {} });
    h.poller.start();
    await until(() => publisher.requests.length === 2);
    const started = performance.now();
    await h.poller.close();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_000);
    expect(h.logger.messages('warn')).toEqual([
      'The shutdown timeout of 200 ms elapsed. QueueBox abandoned 2 in-flight message(s). The reclaim step recovers them.',
    ]);
    expect(publisher.requests.every((r) => r.signal.aborted)).toBe(true);
    await delay(20);
    // Abandoned rows stay `processing` with their attempt unspent; the lease brings them back.
    for (const id of ids)
      expect(h.store.row(id)).toMatchObject({ state: 'processing', attempt: 0 });
    expect(h.metrics.claimsLost.value({ component: 'outbox' })).toBe(0);
    expect(h.store.calls.complete).toEqual([]);
  });

  it('hands claimed but unstarted rows back on shutdown and claims nothing more', async () => {
    const publisher = new FakePublisher('http', 'all', () => delay(100).then(() => ({ ok: true })));
    h = pollerHarness({ publishers: [publisher], config: { concurrency: 1, batchSize: 10 } });
    await h.insert(...Array.from({ length: 5 }, () => ({ topic: 't', payload: {} })));
    h.poller.start();
    await until(() => publisher.requests.length === 1);
    const claims = h.store.calls.claim.length;
    await h.poller.close();
    expect(h.store.calls.release).toEqual([4]);
    expect(h.store.byState('sent')).toHaveLength(1);
    expect(h.store.byState('pending').map((r) => r.attempt)).toEqual([0, 0, 0, 0]);
    await h.insert({ topic: 't', payload: {} });
    await delay(50);
    expect(h.store.calls.claim.length).toBe(claims);
  });

  it('reclaims expired claims at most once per claimTimeoutMs / 5, keeping the attempt', async () => {
    // Reclaim every 100 ms; the loop itself cycles every 5 ms.
    h = pollerHarness({ config: { claimTimeoutMs: 500, pollIntervalMs: 5 } });
    const [id] = await h.insert({ topic: 't', payload: {} });
    Object.assign(h.store.row(id!), {
      state: 'processing',
      attempt: 2,
      claimToken: 'gone',
      leaseExpiresAt: h.store.now() - 1,
    });
    h.poller.start();
    await until(() => h!.store.row(id!).state === 'sent');
    expect(h.publisher.requests[0]!.message.attempt).toBe(2);
    expect(h.metrics.reclaimed.value()).toBe(1);
    const before = h.store.calls.reclaimExpired.length;
    await delay(550);
    const during = h.store.calls.reclaimExpired.length - before;
    expect(during).toBeGreaterThanOrEqual(4);
    expect(during).toBeLessThanOrEqual(7);
  });

  it('refreshes the pending gauges at most once per pendingGaugeIntervalMs', async () => {
    h = pollerHarness({ config: { pendingGaugeIntervalMs: 100, pollIntervalMs: 5 } });
    await h.insert(
      ...Array.from({ length: 3 }, () => ({
        topic: 't',
        payload: {},
        scheduledAt: new Date(Date.now() + 60_000),
      })),
    );
    h.store.advance(2_000);
    h.poller.start();
    await until(() => h!.store.calls.gauges.length === 1);
    await delay(20);
    expect(h.metrics.pending.value()).toBe(3);
    expect(h.metrics.oldestPendingAgeSeconds.value()).toBeGreaterThanOrEqual(2);
    await delay(450);
    const calls = h.store.calls.gauges.length;
    expect(calls).toBeGreaterThanOrEqual(4);
    expect(calls).toBeLessThanOrEqual(6);
  });

  it('spends at most 2 % of the time on the gauges: a slow refresh spaces out the next', async () => {
    const store = new InMemoryOutboxStore();
    const gauges = store.gauges.bind(store);
    const starts: number[] = [];
    const took: number[] = [];
    store.gauges = async () => {
      const started = performance.now();
      starts.push(started);
      await delay(20);
      const result = await gauges();
      took.push(performance.now() - started);
      return result;
    };
    h = pollerHarness({ store, config: { pendingGaugeIntervalMs: 10, pollIntervalMs: 5 } });
    h.poller.start();
    await until(() => starts.length === 2, 20_000, 'a second refresh');
    // The interval alone would allow the next 10 ms after the first began.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(49 * took[0]!);
  });

  it('claims at once on a wake instead of waiting the poll interval', async () => {
    h = pollerHarness({ config: { pollIntervalMs: 60_000 } });
    h.poller.start();
    await until(() => h!.store.calls.claim.length === 1);
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.wake();
    await until(() => h!.store.row(id!).state === 'sent', 1_000, 'delivery after the wake');
  });

  it('claims again after a claim that was on its way when a wake came, whose snapshot missed the rows', async () => {
    h = pollerHarness({ config: { pollIntervalMs: 60_000 } });
    const store = h.store;
    const claim = store.claim.bind(store);
    // The rows are read when the claim starts and returned later, like a database snapshot.
    store.claim = async (...args: Parameters<typeof claim>) => {
      const rows = await claim(...args);
      await delay(100);
      return rows;
    };
    h.poller.start();
    await until(() => store.calls.claim.length === 1);
    await delay(150);
    h.poller.wake();
    await until(() => store.calls.claim.length === 2);
    const [id] = await h.insert({ topic: 't', payload: {} });
    h.poller.wake();
    await until(() => store.row(id!).state === 'sent', 2_000, 'delivery after the second wake');
  });

  it('claims again at once after a claim that filled the batch', async () => {
    h = pollerHarness({ config: { pollIntervalMs: 60_000, batchSize: 4, concurrency: 8 } });
    await h.insert(...Array.from({ length: 12 }, () => ({ topic: 't', payload: {} })));
    h.poller.start();
    await until(
      () => h!.store.byState('sent').length === 12,
      1_000,
      'all sent without a poll wait',
    );
  });
});

describe('OutboxPoller with capture: the load it reports and the wait it keeps', () => {
  const capture = { mode: 'postgres-logical' as const, reconciliationIntervalMs: 10_000 };

  it('reports every claim to the load, and waits up to the reconciliation interval while not busy', async () => {
    const recorded: number[] = [];
    const load = { busy: false, record: (rows: number) => recorded.push(rows) };
    h = pollerHarness({ config: { capture, pollIntervalMs: 20 }, claimLoad: load });
    await h.insert({ topic: 't', payload: {} }, { topic: 't', payload: {} });
    h.poller.start();
    await until(() => h!.publisher.requests.length === 2);
    expect(recorded[0]).toBe(2);
    // Nothing wakes it (no capture here): a row inserted now waits for the reconciliation.
    await delay(50);
    await h.insert({ topic: 't', payload: {} });
    await delay(300);
    expect(h.publisher.requests).toHaveLength(2);
  });

  it('polls at most 100 ms apart while the load is busy (capture has closed its feed)', async () => {
    const load = { busy: true, record: () => undefined };
    h = pollerHarness({ config: { capture, pollIntervalMs: 20 }, claimLoad: load });
    h.poller.start();
    await delay(50);
    const inserted = performance.now();
    await h.insert({ topic: 't', payload: {} });
    await until(() => h!.publisher.requests.length === 1, 2_000);
    expect(performance.now() - inserted).toBeLessThan(500);
  });
});
