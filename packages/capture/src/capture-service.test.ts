import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeCaptureSource,
  FakeLoad,
  waitFor,
  type SessionPlan,
} from '../test/fake-capture-source.js';
import { CaptureBackoff } from './capture-backoff.js';
import { CaptureService, type CaptureFeedState, type CaptureTimings } from './capture-service.js';
import { captureLogTexts } from './log-texts.js';
import type { DeliveryLoad } from '@queuebox/core';
import { recordingLogger } from '@queuebox/testing';

const FAST: Partial<CaptureTimings> = {
  initialBackoffMs: 5,
  maxBackoffMs: 20,
  checkIntervalMs: 5,
  followUpWakeMs: null,
};

const services: CaptureService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

function serviceWith(
  plans: SessionPlan[] = [],
  timings: Partial<CaptureTimings> = FAST,
  load?: DeliveryLoad,
) {
  const source = new FakeCaptureSource(plans);
  const states: CaptureFeedState[] = [];
  const logger = recordingLogger();
  const retained = new Map<string, number | null>();
  let wakes = 0;
  const service = new CaptureService({
    capture: { identity: 'queuebox' },
    source,
    wake: () => wakes++,
    logger,
    metrics: {
      durableSlotRetained: (slot, bytes) => retained.set(slot, bytes),
      feedState: (state) => states.push(state),
    },
    ...(load ? { load } : {}),
    timings,
  });
  services.push(service);
  return { service, source, logger, retained, states, wakes: () => wakes };
}

describe('CaptureService: wakes', () => {
  it('wakes on start and when the feed streams, on inserts and unreadable changes, not on updates or deletes', async () => {
    const { service, source, wakes } = serviceWith();
    service.start();
    await waitFor(() => service.healthy);
    // One wake as the attempt starts, one when the feed streams.
    expect(wakes()).toBe(2);
    const listener = source.last!.listener!;
    listener.onChange('update');
    listener.onChange('delete');
    expect(wakes()).toBe(2);
    listener.onChange('insert');
    expect(wakes()).toBe(3);
    listener.onChange('unreadable');
    expect(wakes()).toBe(4);
  });

  it('follows an insert with one more wake shortly after, however many inserts came meanwhile', async () => {
    const { service, source, wakes } = serviceWith([], { ...FAST, followUpWakeMs: 20 });
    service.start();
    await waitFor(() => service.healthy);
    const before = wakes();
    for (let i = 0; i < 5; i++) source.last!.listener!.onChange('insert');
    expect(wakes()).toBe(before + 5);
    await waitFor(() => wakes() === before + 6);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(wakes()).toBe(before + 6);
  });

  it('wakes when a run ends, marks itself unhealthy, and starts a new run after the backoff', async () => {
    const { service, source, logger, wakes } = serviceWith();
    service.start();
    await waitFor(() => service.healthy);
    const before = wakes();
    source.last!.fail('The replication connection closed.');
    await waitFor(() => source.sessions.length === 2 && service.healthy);
    expect(source.sessions[0]!.closed).toBe(true);
    // The end, the new attempt, the new stream.
    expect(wakes()).toBe(before + 3);
    expect(logger.messages('warn')).toEqual([
      captureLogTexts.interrupted('Error: The replication connection closed.'),
    ]);
  });

  it('ends the run when the session is lost, and takes the lock again on a new one', async () => {
    const { service, source, logger } = serviceWith();
    service.start();
    await waitFor(() => service.healthy);
    source.last!.alive_ = false;
    await waitFor(() => source.sessions.length === 2 && service.healthy);
    expect(logger.messages('warn')).toEqual([
      captureLogTexts.interrupted(`Error: ${captureLogTexts.lockLost}`),
    ]);
  });
});

describe('CaptureService: ownership', () => {
  it('stops for good when another process holds the identity, logging the reference text once', async () => {
    const { service, source, logger, wakes } = serviceWith([
      { lock: { held: false, holder: '4242' } },
    ]);
    service.start();
    await waitFor(() => wakes() === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(source.opens).toBe(1);
    expect(source.last!.closed).toBe(true);
    expect(service.healthy).toBe(false);
    expect(logger.messages('warn')).toEqual([
      'Capture identity already has an active owner. SQL reconciliation continues.',
    ]);
  });

  it('ends its own previous session when that one still holds the lock, and retries', async () => {
    const { service, source, logger } = serviceWith([{}, { lock: { held: false, holder: '101' } }]);
    service.start();
    await waitFor(() => service.healthy);
    source.last!.fail('cut');
    await waitFor(() => source.sessions.length === 3 && service.healthy);
    expect(source.sessions[1]!.ended).toEqual(['101']);
    expect(logger.messages('warn')[1]).toBe(
      captureLogTexts.interrupted(`Error: ${captureLogTexts.staleSession('queuebox', '101')}`),
    );
  });
});

describe('CaptureService: registry, preflight, backoff', () => {
  it('registers the identity once, with the SHA-256 of the fingerprint lines, and keeps a row it finds', async () => {
    const { service, source, logger } = serviceWith();
    service.start();
    await waitFor(() => service.healthy);
    const row = source.rows.get('queuebox')!;
    expect(row.fingerprint).toBe(
      createHash('sha256').update('connector.class=fake\nslot.name=s').digest('hex'),
    );
    expect(row.stateId).toMatch(/^[0-9a-f-]{36}$/);
    source.rows.set('queuebox', { ...row, fingerprint: 'from-0.8.1' });
    source.last!.fail('cut');
    await waitFor(() => source.sessions.length === 2 && service.healthy);
    expect(source.rows.get('queuebox')).toEqual({ ...row, fingerprint: 'from-0.8.1' });
    expect(logger.messages('info')).toContain(captureLogTexts.registered('queuebox'));
  });

  it('retries a failing preflight with the backoff, logging the sanitized reason each time, then runs', async () => {
    const missing = new Error(
      'The publication queuebox_outbox does not exist. Create it before you enable capture.',
    );
    const { service, source, logger } = serviceWith([
      { preflightError: missing },
      { preflightError: missing },
      { openError: new Error('connect failed for postgres://u:hunter2@db/x') },
    ]);
    service.start();
    await waitFor(() => service.healthy);
    expect(source.opens).toBe(4);
    const warns = logger.messages('warn');
    expect(warns.slice(0, 2)).toEqual([
      captureLogTexts.interrupted(`Error: ${missing.message}`),
      captureLogTexts.interrupted(`Error: ${missing.message}`),
    ]);
    expect(warns[2]).not.toContain('hunter2');
  });

  it('doubles the delay from the first up to the cap, and starts over after a long healthy run', () => {
    const backoff = new CaptureBackoff(1_000, 30_000);
    const delays = Array.from({ length: 7 }, () => backoff.next());
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    backoff.ranFor(29_999);
    expect(backoff.next()).toBe(30_000);
    backoff.ranFor(30_000);
    expect(backoff.next()).toBe(1_000);
  });
});

describe('CaptureService: durable slots and close', () => {
  it('warns once about a durable slot with the drop command, keeps its gauge, and drops the series when it goes', async () => {
    const { service, source, logger, retained } = serviceWith([], {
      ...FAST,
      slotCheckIntervalMs: 5,
    });
    source.slots = [{ name: 'queuebox_outbox', active: false, retainedBytes: 1234 }];
    service.start();
    await waitFor(() => service.healthy);
    expect(retained.get('queuebox_outbox')).toBe(1234);
    source.slots = [{ name: 'queuebox_outbox', active: false, retainedBytes: 5678 }];
    await waitFor(() => retained.get('queuebox_outbox') === 5678);
    const warns = logger.messages('warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain("SELECT pg_drop_replication_slot('queuebox_outbox');");
    expect(warns[0]).toContain('1234 bytes');
    source.slots = [];
    await waitFor(() => retained.get('queuebox_outbox') === null);
    expect(logger.messages('info')).toContain(captureLogTexts.durableSlotGone('queuebox_outbox'));
  });

  it('closes a run that is still opening its feed, and the session with it', async () => {
    const { service, source } = serviceWith([{ hangOnStream: true }]);
    service.start();
    await waitFor(() => source.sessions.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await service.close();
    expect(source.last!.closed).toBe(true);
    expect(source.opens).toBe(1);
    expect(service.healthy).toBe(false);
  });
});

describe('CaptureService: the feed follows the poller load', () => {
  it('closes the feed while the poller is busy, keeps the session and health, and opens a new feed after', async () => {
    const load = new FakeLoad();
    const { service, source, logger, states, wakes } = serviceWith([], FAST, load);
    service.start();
    await waitFor(() => service.healthy);
    const session = source.last!;
    expect(session.streamsOpened).toBe(1);
    expect(service.feedState).toBe('streaming');

    load.set(true);
    await waitFor(() => service.feedState === 'paused');
    expect(session.streaming).toBe(false);
    // Paused on purpose: the same session (and lock) stays, and the advisory health stays up.
    expect(service.healthy).toBe(true);
    expect(session.closed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(source.opens).toBe(1);
    expect(session.streamsOpened).toBe(1);

    const before = wakes();
    load.set(false);
    await waitFor(() => service.feedState === 'streaming');
    expect(session.streamsOpened).toBe(2);
    expect(session.streaming).toBe(true);
    // The new feed's start wakes the poller, for what was committed before it.
    expect(wakes()).toBe(before + 1);
    session.listener!.onChange('insert');
    expect(wakes()).toBe(before + 2);
    expect(states).toEqual(['down', 'streaming', 'paused', 'streaming']);
    expect(logger.messages('debug')).toEqual(
      expect.arrayContaining([captureLogTexts.paused, captureLogTexts.resumed]),
    );
    expect(logger.messages('warn')).toEqual([]);
  });

  it('still checks the session while paused, and a lost session ends the run as before', async () => {
    const load = new FakeLoad();
    const { service, source, logger, states } = serviceWith([], FAST, load);
    service.start();
    await waitFor(() => service.healthy);
    load.set(true);
    await waitFor(() => service.feedState === 'paused');
    source.last!.alive_ = false;
    // The new run starts while the poller is still busy: it opens its feed, then pauses it.
    await waitFor(() => source.sessions.length === 2 && service.feedState === 'paused');
    expect(logger.messages('warn')).toEqual([
      captureLogTexts.interrupted(`Error: ${captureLogTexts.lockLost}`),
    ]);
    expect(states).toEqual(['down', 'streaming', 'paused', 'down', 'streaming', 'paused']);
  });

  it('a feed that fails while streaming still ends the run, with the load attached', async () => {
    const load = new FakeLoad();
    const { service, source, logger } = serviceWith([], FAST, load);
    service.start();
    await waitFor(() => service.healthy);
    load.set(true);
    await waitFor(() => service.feedState === 'paused');
    load.set(false);
    await waitFor(() => service.feedState === 'streaming');
    source.last!.fail('The replication connection closed.');
    await waitFor(() => source.sessions.length === 2 && service.feedState === 'streaming');
    expect(logger.messages('warn')).toEqual([
      captureLogTexts.interrupted('Error: The replication connection closed.'),
    ]);
  });

  it('closes cleanly while paused', async () => {
    const load = new FakeLoad();
    const { service, source } = serviceWith([], FAST, load);
    service.start();
    await waitFor(() => service.healthy);
    load.set(true);
    await waitFor(() => service.feedState === 'paused');
    await service.close();
    expect(source.last!.closed).toBe(true);
    expect(service.feedState).toBe('down');
    expect(service.healthy).toBe(false);
  });
});
