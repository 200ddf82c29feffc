import { QueueBoxError } from '@queuebox/core';
import { ConnectionError, RequestError } from 'tedious';
import { describe, expect, it } from 'vitest';
import { classifySqlServerError, sqlServerError } from './classify-error.js';

/** A server message as tedious raises it: a RequestError with the message number. */
const server = (number: number, message = 'refused') =>
  Object.assign(new RequestError(message, 'EREQUEST'), { number, state: 1, class: 16 });
const connection = (code: string) => new ConnectionError(`Failed to connect: ${code}`, code);
const socket = (code: string) => Object.assign(new Error(`read ${code}`), { code });

describe('classifySqlServerError', () => {
  it('Msg 51000 (the claim lock was not acquired) is transient, to retry after a backoff', () => {
    const thrown = server(
      51000,
      'inbox pull claim: sp_getapplock did not acquire the per-source claim lock',
    );
    expect(classifySqlServerError(thrown)).toEqual({
      errorClass: 'transient',
      code: 'database_conflict',
      driverCode: '51000',
      backoff: true,
    });
    const wrapped = sqlServerError(thrown, 'claim inbox rows');
    expect(wrapped.retryable).toBe(true);
    expect(wrapped.message).toBe(
      'The database could not claim inbox rows (Msg 51000): a lock is held elsewhere; a retry after a wait can succeed.',
    );
    expect(wrapped.cause).toBe(thrown);
  });

  it.each([
    [1205, 'database_conflict'],
    [1222, 'database_conflict'],
    [40501, 'database_unavailable'],
    [40613, 'database_unavailable'],
    [4060, 'database_unavailable'],
  ])('Msg %i (a lock, a deadlock, a busy or moving database) waits before its retry', (n, code) => {
    expect(classifySqlServerError(server(n))).toMatchObject({
      errorClass: 'transient',
      code,
      backoff: true,
    });
  });

  it.each(['ESOCKET', 'ETIMEOUT', 'ECLOSE', 'EINSTLOOKUP'])(
    'a lost or refused connection (tedious %s) is transient and may retry at once',
    (code) => {
      expect(classifySqlServerError(connection(code))).toEqual({
        errorClass: 'transient',
        code: 'database_unavailable',
        driverCode: code,
        backoff: false,
      });
    },
  );

  it('a socket error inside a connection error, and an AggregateError of refusals', () => {
    const cause = socket('ECONNRESET');
    const outer = new Error('Connection lost', { cause });
    expect(classifySqlServerError(outer)).toMatchObject({
      code: 'database_unavailable',
      driverCode: 'ECONNRESET',
    });
    const all = new AggregateError([socket('ECONNREFUSED'), socket('ECONNREFUSED')], '');
    expect(classifySqlServerError(all)).toMatchObject({ driverCode: 'ECONNREFUSED' });
  });

  it.each([2627, 2601, 515, 547, 2628, 8152, 245, 241, 8114, 8169, 13609])(
    'Msg %i refuses the values themselves: permanent (storage_rejected)',
    (n) => {
      const classified = classifySqlServerError(server(n));
      expect(classified).toEqual({
        errorClass: 'permanent',
        code: 'storage_rejected',
        driverCode: String(n),
        backoff: false,
      });
      const wrapped = sqlServerError(server(n), 'store the message');
      expect(wrapped.retryable).toBe(false);
      expect(wrapped.message).toBe(
        `The database refused to store the message (Msg ${n}): the data can never be stored as it is.`,
      );
    },
  );

  it('an unknown server message, a missing table or a failed login stays transient', () => {
    expect(classifySqlServerError(server(208, "Invalid object name 'outbox'"))).toEqual({
      errorClass: 'transient',
      code: 'internal',
      driverCode: '208',
      backoff: false,
    });
    expect(classifySqlServerError(connection('ELOGIN'))).toMatchObject({
      errorClass: 'transient',
      code: 'internal',
      driverCode: 'ELOGIN',
    });
    expect(classifySqlServerError(new Error('?'))).toMatchObject({
      errorClass: 'transient',
      driverCode: null,
    });
  });

  it('keeps a classification made where the error arose', () => {
    const own = new QueueBoxError('storage_rejected', 'no', { retryable: false });
    expect(classifySqlServerError(own)).toMatchObject({
      errorClass: 'permanent',
      code: 'storage_rejected',
    });
    expect(sqlServerError(own, 'x')).toBe(own);
  });
});
