import { describe, expect, it } from 'vitest';
import { FailureStreak, MAX_FAILURE_BACKOFF_MS } from './failure-streak.js';
import type { Logger, LogFields } from './ports/logger.js';

function logged() {
  const lines: string[] = [];
  const at =
    (level: string) =>
    (message: string, _fields?: LogFields): void => {
      lines.push(`${level} ${message}`);
    };
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return { lines, logger };
}

function streak(baseDelayMs = 100) {
  const { lines, logger } = logged();
  const failures = new FailureStreak({
    logger,
    baseDelayMs,
    failed: (reason) => `failed: ${reason}`,
    recovered: (n) => `back after ${n}`,
  });
  return { lines, failures };
}

describe('FailureStreak', () => {
  it('logs the first failure of a streak at ERROR, the rest at DEBUG, the end at INFO', () => {
    const { lines, failures } = streak();
    failures.failed('a');
    failures.failed('b');
    failures.failed('c');
    failures.succeeded();
    failures.succeeded();
    failures.failed('d');
    expect(lines).toEqual([
      'error failed: a',
      'debug failed: b',
      'debug failed: c',
      'info back after 3',
      'error failed: d',
    ]);
  });

  it('doubles the pause from the base up to the cap, and starts over after a success', () => {
    const { failures } = streak(100);
    const pauses = Array.from({ length: 8 }, () => failures.failed('x'));
    expect(pauses).toEqual([100, 200, 400, 800, 1600, 3200, 4000, 4000]);
    expect(MAX_FAILURE_BACKOFF_MS).toBeLessThan(5_000);
    failures.succeeded();
    expect(failures.backoffMs()).toBe(0);
    expect(failures.failed('x')).toBe(100);
  });

  it('never pauses less than the base, even past the cap', () => {
    const { failures } = streak(10_000);
    expect([failures.failed('x'), failures.failed('x')]).toEqual([10_000, 10_000]);
  });

  it('reports a side failure only when no streak is open, and never pauses for it', () => {
    const { lines, failures } = streak();
    failures.sideFailed('gauge');
    expect(failures.backoffMs()).toBe(0);
    failures.failed('claim');
    failures.sideFailed('gauge again');
    failures.succeeded();
    expect(lines).toEqual(['error failed: gauge', 'debug failed: claim', 'info back after 2']);
  });
});
