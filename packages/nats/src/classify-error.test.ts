import { errors } from '@nats-io/transport-node';
import { QueueBoxError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { classifyNatsError, natsError } from './classify-error.js';

describe('classifyNatsError', () => {
  it('calls a payload over max_payload permanent', () => {
    // What the client throws for a body larger than the server's max_payload.
    const tooLarge = errors.InvalidArgumentError.format('payload', 'max_payload size exceeded');
    expect(classifyNatsError(tooLarge)).toEqual({
      errorClass: 'permanent',
      code: 'publish_failed',
      driverCode: 'InvalidArgumentError',
    });
  });

  it('calls a lost connection or a timeout transient', () => {
    expect(classifyNatsError(new errors.ClosedConnectionError()).errorClass).toBe('transient');
    expect(classifyNatsError(new errors.TimeoutError()).errorClass).toBe('transient');
  });

  it('reads a refused permission as an auth failure a fix can clear', () => {
    const refused = new errors.PermissionViolationError(
      'Permissions Violation for Publish',
      'publish',
      'orders.x',
    );
    expect(classifyNatsError(refused)).toMatchObject({
      errorClass: 'transient',
      code: 'auth_failed',
    });
  });

  it('keeps what was classified where it arose, and calls the unknown transient', () => {
    const refused = new QueueBoxError('publish_failed', 'too big', { retryable: false });
    expect(classifyNatsError(refused).errorClass).toBe('permanent');
    expect(classifyNatsError(42)).toEqual({
      errorClass: 'transient',
      code: 'publish_failed',
      driverCode: null,
    });
  });

  it('makes a QueueBoxError whose retryable flag follows the class, with the text as given', () => {
    const tooLarge = errors.InvalidArgumentError.format('payload', 'max_payload size exceeded');
    const refused = natsError(tooLarge, 'Publish failed: too large');
    expect(refused).toBeInstanceOf(QueueBoxError);
    expect(refused).toMatchObject({
      code: 'publish_failed',
      retryable: false,
      message: 'Publish failed: too large',
      cause: tooLarge,
    });
    expect(natsError(new errors.TimeoutError(), 'late')).toMatchObject({ retryable: true });
    const denied = new errors.PermissionViolationError('denied', 'publish', 'orders.x');
    expect(natsError(denied, 'no')).toMatchObject({ code: 'auth_failed', retryable: true });
  });
});
