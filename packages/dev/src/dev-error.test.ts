import { QueueBoxError, sanitizeError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { DevError } from './dev-error.js';

describe('DevError', () => {
  it('is a startup failure of the taxonomy that keeps its own name and text', () => {
    const error = new DevError('Port 5432 is taken: stop what listens there.');
    expect(error).toBeInstanceOf(QueueBoxError);
    expect(error).toMatchObject({
      name: 'DevError',
      code: 'startup_failed',
      retryable: false,
      message: 'Port 5432 is taken: stop what listens there.',
    });
    expect(sanitizeError(error)).toBe('DevError: Port 5432 is taken: stop what listens there.');
  });
});
