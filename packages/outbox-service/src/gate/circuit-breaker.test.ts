import type { CircuitBreakerConfig } from '@queuebox/core';
import { MemoryGauge, RecordingLogger } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type CircuitTransition } from './circuit-breaker.js';
import { addCircuitBreakers } from './circuit-breakers.js';
import { DestinationGates } from './destination-gates.js';

const CONFIG: CircuitBreakerConfig = {
  failureThreshold: 3,
  failureRatePercent: null,
  windowMs: 10_000,
  minimumCalls: 4,
  openMs: 1_000,
  maxRetryAfterMs: 60_000,
};

const ok = { kind: 'success' } as const;
const failed = { kind: 'failure' } as const;

function breaker(config: Partial<CircuitBreakerConfig> = {}) {
  const transitions: CircuitTransition[] = [];
  const b = new CircuitBreaker('partner', { ...CONFIG, ...config }, (t) => transitions.push(t));
  /** One admitted publish with its outcome, at `now`. */
  const publish = (
    now: number,
    outcome: typeof ok | typeof failed | { kind: 'failure'; retryAfterMs: number },
  ) => {
    expect(b.admit(now)).toBe(true);
    b.settled(outcome, now);
  };
  const path = () => transitions.map((t) => t.to);
  return { b, transitions, publish, path };
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold failures in a row, not when a success breaks the run', () => {
    const { b, publish, path, transitions } = breaker();
    publish(0, failed);
    publish(1, failed);
    publish(2, ok);
    publish(3, failed);
    publish(4, failed);
    expect(b.state(5)).toBe('closed');
    expect(b.admit(5)).toBe(true);
    // The failure that opens the circuit was an ordinary attempt: it counts.
    expect(b.settled(failed, 5)).toBeUndefined();
    expect(b.state(5)).toBe('open');
    expect(path()).toEqual(['open']);
    expect(transitions[0]).toMatchObject({
      from: 'closed',
      openForMs: 1_000,
      reason: '3 publishes in a row failed',
    });
  });

  it('makes no attempt while open: blocked for the claim and refused at the publish', () => {
    const { b, publish } = breaker();
    for (let i = 0; i < 3; i++) publish(i, failed);
    expect(b.blocked(500)).toBe(true);
    expect(b.admit(500)).toBe(false);
    expect(b.blocked(1_001)).toBe(true);
    expect(b.admit(1_001)).toBe(false);
  });

  it('goes half-open after openMs, lets exactly one probe through and closes on its success', () => {
    const { b, publish, path } = breaker();
    for (let i = 0; i < 3; i++) publish(i, failed);
    // Opened at 2: half-open from 1002.
    expect(b.blocked(1_002)).toBe(false);
    expect(b.state(1_002)).toBe('half-open');
    expect(b.admit(1_002)).toBe(true);
    expect(b.blocked(1_003)).toBe(true);
    expect(b.admit(1_003)).toBe(false);
    b.settled(ok, 1_010);
    expect(b.state(1_010)).toBe('closed');
    expect(b.admit(1_011)).toBe(true);
    expect(path()).toEqual(['open', 'half-open', 'closed']);
    // The counts start again: two more failures do not open it.
    b.settled(failed, 1_012);
    publish(1_013, failed);
    expect(b.state(1_014)).toBe('closed');
  });

  it('opens again for openMs when the probe fails', () => {
    const { b, publish, path, transitions } = breaker();
    for (let i = 0; i < 3; i++) publish(i, failed);
    expect(b.admit(1_500)).toBe(true);
    // The probe's row is not charged an attempt: the outage it confirms is not the row's.
    expect(b.settled(failed, 1_600)).toBe('uncounted');
    expect(b.state(1_600)).toBe('open');
    expect(b.blocked(2_599)).toBe(true);
    expect(b.state(2_600)).toBe('half-open');
    expect(path()).toEqual(['open', 'half-open', 'open', 'half-open']);
    expect(transitions[2]?.reason).toBe('the probe publish failed');
  });

  it('lets another probe go when the probe had no answer (claim lost)', () => {
    const { b, publish } = breaker();
    for (let i = 0; i < 3; i++) publish(i, failed);
    expect(b.admit(1_500)).toBe(true);
    b.settled({ kind: 'cancelled' }, 1_501);
    expect(b.state(1_501)).toBe('half-open');
    expect(b.admit(1_502)).toBe(true);
  });

  it('opens on a failure share over the window once minimumCalls publishes were counted', () => {
    const { b, publish, transitions } = breaker({
      failureThreshold: 100,
      failureRatePercent: 50,
      minimumCalls: 5,
    });
    publish(0, failed);
    publish(1, ok);
    publish(2, ok);
    publish(3, failed);
    expect(b.state(3)).toBe('closed'); // 2 of 4 failed, but only 4 calls: below minimumCalls 5
    publish(4, failed);
    expect(b.state(5)).toBe('open'); // 3 of 5 failed: 60 % ≥ 50 %
    expect(transitions[0]?.reason).toBe('3 of the last 5 publishes failed');
  });

  it('forgets the outcomes that slid out of the window', () => {
    const { b, publish } = breaker({ failureThreshold: 100, failureRatePercent: 50 });
    publish(0, failed);
    publish(1, failed);
    publish(2, failed);
    // Eleven seconds on, the window (10 s) holds none of them.
    publish(11_000, ok);
    publish(11_001, ok);
    publish(11_002, ok);
    publish(11_003, failed);
    expect(b.state(11_004)).toBe('closed');
  });

  it('honours Retry-After for the destination, capped at maxRetryAfterMs', () => {
    const { b, publish, transitions } = breaker({ maxRetryAfterMs: 5_000 });
    publish(0, { kind: 'failure', retryAfterMs: 2_000 });
    expect(transitions[0]).toMatchObject({
      to: 'open',
      openForMs: 2_000,
      reason: 'the destination answered with Retry-After',
    });
    expect(b.blocked(1_999)).toBe(true);
    expect(b.blocked(2_000)).toBe(false);
    const capped = breaker({ maxRetryAfterMs: 5_000 });
    capped.publish(0, { kind: 'failure', retryAfterMs: 86_400_000 });
    expect(capped.transitions[0]?.openForMs).toBe(5_000);
  });

  it('lets a Retry-After that arrives while open keep it open longer, never shorter', () => {
    const { b, publish } = breaker();
    // Two publishes in flight when the third failure opens the circuit.
    expect(b.admit(0)).toBe(true);
    expect(b.admit(0)).toBe(true);
    for (let i = 0; i < 3; i++) publish(i, failed);
    b.settled({ kind: 'failure', retryAfterMs: 5_000 }, 10);
    b.settled({ kind: 'failure', retryAfterMs: 10 }, 20);
    expect(b.blocked(5_009)).toBe(true);
    expect(b.blocked(5_010)).toBe(false);
  });

  it('probes only once the publishes started before it opened have answered', () => {
    const { b, publish } = breaker();
    expect(b.admit(0)).toBe(true); // still in flight when the circuit opens
    for (let i = 0; i < 3; i++) publish(i, failed);
    expect(b.state(1_500)).toBe('half-open');
    expect(b.blocked(1_500)).toBe(true);
    expect(b.admit(1_500)).toBe(false);
    // The straggler's answer is not taken for a probe's: it counts as the attempt it was.
    expect(b.settled(failed, 1_600)).toBeUndefined();
    expect(b.state(1_600)).toBe('half-open');
    expect(b.blocked(1_600)).toBe(false);
    expect(b.admit(1_601)).toBe(true);
    expect(b.settled(failed, 1_700)).toBe('uncounted');
    expect(b.state(1_700)).toBe('open');
  });
});

describe('addCircuitBreakers', () => {
  it('adds a breaker per configured destination, with the gauge and one log line per change', () => {
    const gauge = new MemoryGauge();
    const logger = new RecordingLogger();
    let now = 0;
    const gates = new DestinationGates([{ topicPattern: '**', destination: 'a' }], () => now);
    const breakers = addCircuitBreakers(
      gates,
      {
        a: { type: 'nats', circuitBreaker: { ...CONFIG, failureThreshold: 1 } },
        b: { type: 'nats', circuitBreaker: null },
      } as never,
      { logger, circuitState: gauge },
    );
    expect(breakers.map((x) => x.destination)).toEqual(['a']);
    expect(gauge.value({ destination: 'a' })).toBe(0);
    expect(gates.admit('a')).toBe(true);
    gates.settled('a', { kind: 'failure' });
    expect(gauge.value({ destination: 'a' })).toBe(1);
    expect(gates.claimOptions()).toEqual({ passOver: [{ pattern: '**', unless: [] }] });
    now = 1_000;
    expect(gates.blocked().size).toBe(0);
    expect(gauge.value({ destination: 'a' })).toBe(2);
    expect(gates.admit('a')).toBe(true);
    gates.settled('a', { kind: 'success' });
    expect(gauge.value({ destination: 'a' })).toBe(0);
    expect(logger.messages('warn')).toEqual([
      "The circuit of destination 'a' opened for 1000 ms: 1 publishes in a row failed. Its messages wait, and no attempt is counted while it is open.",
    ]);
    expect(logger.messages('info')).toEqual([
      "The circuit of destination 'a' is half-open: the open time is over; one publish probes the destination.",
      "The circuit of destination 'a' closed: the probe publish succeeded. Its messages flow again.",
    ]);
  });
});
