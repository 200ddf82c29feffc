import { QueueBoxError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { REQUEST_TIMEOUT_MS } from './connection-options.js';
import { callBoundMs, settleWithin } from './bounded-call.js';

describe('settleWithin', () => {
  it('fails a call that never settles as a transient database_unavailable', async () => {
    const never = new Promise<never>(() => undefined);
    const error = await settleWithin(never, 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueBoxError);
    expect(error).toMatchObject({ code: 'database_unavailable', retryable: true });
  });

  it('passes a call that settles in time through, value or error', async () => {
    await expect(settleWithin(Promise.resolve(7), 1_000)).resolves.toBe(7);
    await expect(settleWithin(Promise.reject(new Error('boom')), 1_000)).rejects.toThrow('boom');
  });

  it('waits past the driver: a borrow or connect, the request timeout and its cancel', () => {
    expect(callBoundMs(30_000)).toBe(30_000 + REQUEST_TIMEOUT_MS + 5_000);
  });
});
