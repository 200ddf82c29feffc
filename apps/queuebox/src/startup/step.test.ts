import { errorClassOf, QueueBoxError, sanitizeError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { StartupFailure, step } from './step.js';

describe('step', () => {
  it('turns a failure into a StartupFailure of the taxonomy, its text unchanged', async () => {
    const failure = await step('open the door', () => {
      throw new Error('stuck');
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StartupFailure);
    expect(failure).toBeInstanceOf(QueueBoxError);
    expect(failure).toMatchObject({
      name: 'StartupFailure',
      code: 'startup_failed',
      message: 'QueueBox could not open the door. Reason: Error: stuck',
    });
    // Refused at start: retrying the same start does not help.
    expect(errorClassOf(failure)).toBe('permanent');
    expect(sanitizeError(failure)).toBe(
      'StartupFailure: QueueBox could not open the door. Reason: Error: stuck',
    );
  });

  it('passes a StartupFailure of an inner step through as it is', async () => {
    const inner = new StartupFailure('QueueBox could not start the inner step. Reason: x');
    await expect(step('start the outer step', () => Promise.reject(inner))).rejects.toBe(inner);
  });

  it('keeps a configuration error as the reason, without its name', async () => {
    const config = new QueueBoxError('config_invalid', 'outbox.table: must be a name');
    await expect(step('read the configuration', () => Promise.reject(config))).rejects.toThrow(
      'QueueBox could not read the configuration. Reason: outbox.table: must be a name',
    );
  });
});
