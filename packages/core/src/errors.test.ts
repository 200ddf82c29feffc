import { describe, expect, it } from 'vitest';
import { errorClassOf, QueueBoxError, toError } from './errors.js';

describe('errorClassOf', () => {
  it('reads the class a classifier gave a QueueBoxError', () => {
    const outage = new QueueBoxError('database_unavailable', 'connection lost', {
      retryable: true,
    });
    const poison = new QueueBoxError('storage_rejected', 'value too long', { retryable: false });
    expect(errorClassOf(outage)).toBe('transient');
    expect(errorClassOf(poison)).toBe('permanent');
  });

  it('takes a QueueBoxError without a retryable flag as permanent, as its default says', () => {
    expect(errorClassOf(new QueueBoxError('config_invalid', 'bad key'))).toBe('permanent');
  });

  it('takes anything unclassified as transient: a retry never loses a message', () => {
    expect(errorClassOf(new Error('socket hang up'))).toBe('transient');
    expect(errorClassOf('a string')).toBe('transient');
    expect(errorClassOf(undefined)).toBe('transient');
  });
});

describe('toError', () => {
  it('keeps an Error and wraps anything else', () => {
    const error = new TypeError('x');
    expect(toError(error)).toBe(error);
    expect(toError('text').message).toBe('text');
    expect(toError({ a: 1 }).message).toBe('{"a":1}');
  });
});
