import { describe, expect, it } from 'vitest';
import { ReconnectSchedule } from './reconnect-schedule.js';

/** Resolves once `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('ReconnectSchedule', () => {
  it('doubles the wait per failed attempt and starts over after a connect', async () => {
    const schedule = new ReconnectSchedule(new AbortController().signal, 1, 4);
    const announced: number[] = [];
    let attempts = 0;
    const loop = (): void =>
      schedule.schedule(
        () => (++attempts < 4 ? Promise.reject(new Error('down')) : Promise.resolve()),
        () => schedule.connected(),
        () => {
          announced.push(schedule.nextDelayMs);
          loop();
        },
      );
    expect(schedule.nextDelayMs).toBe(1);
    loop();
    await until(() => attempts === 4 && schedule.nextDelayMs === 1);
    expect(announced).toEqual([2, 4, 4]);
  });

  it('runs one attempt at a time and none once the source stops', async () => {
    const stop = new AbortController();
    const schedule = new ReconnectSchedule(stop.signal, 1, 1);
    let attempts = 0;
    const attempt = () => {
      attempts++;
      return Promise.resolve();
    };
    schedule.schedule(
      attempt,
      () => undefined,
      () => undefined,
    );
    schedule.schedule(
      attempt,
      () => undefined,
      () => undefined,
    );
    await until(() => attempts === 1);
    stop.abort();
    schedule.schedule(
      attempt,
      () => undefined,
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(attempts).toBe(1);
  });
});
