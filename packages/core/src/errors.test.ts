import { describe, expect, it } from 'vitest';
import {
  brokerError,
  classifyBrokerError,
  errorClassOf,
  QueueBoxError,
  toError,
} from './errors.js';

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

describe('classifyBrokerError', () => {
  const codes = { permanent: new Set(['TOO_LARGE']), auth: new Set(['DENIED']) };

  it('follows the lists for a code the client gave, and calls the rest transient', () => {
    expect(classifyBrokerError(new Error('x'), 'TOO_LARGE', codes)).toEqual({
      errorClass: 'permanent',
      code: 'publish_failed',
      driverCode: 'TOO_LARGE',
    });
    expect(classifyBrokerError(new Error('x'), 'DENIED', codes)).toEqual({
      errorClass: 'transient',
      code: 'auth_failed',
      driverCode: 'DENIED',
    });
    expect(classifyBrokerError(new Error('x'), null, codes)).toEqual({
      errorClass: 'transient',
      code: 'publish_failed',
      driverCode: null,
    });
  });

  it('keeps the class of an error classified where it arose', () => {
    const refused = new QueueBoxError('config_invalid', 'no', { retryable: false });
    expect(classifyBrokerError(refused, 'DENIED', codes)).toEqual({
      errorClass: 'permanent',
      code: 'config_invalid',
      driverCode: null,
    });
  });
});

describe('brokerError', () => {
  it('keeps the text as given and sets retryable from the class', () => {
    const cause = new Error('client said no');
    const permanent = brokerError(cause, 'Publish failed: refused', {
      errorClass: 'permanent',
      code: 'publish_failed',
      driverCode: 'TOO_LARGE',
    });
    expect(permanent).toMatchObject({
      code: 'publish_failed',
      retryable: false,
      message: 'Publish failed: refused',
      cause,
    });
    expect(errorClassOf(permanent)).toBe('permanent');
    const transient = brokerError(cause, 'x', {
      errorClass: 'transient',
      code: 'auth_failed',
      driverCode: null,
    });
    expect(errorClassOf(transient)).toBe('transient');
  });
});
