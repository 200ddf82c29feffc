import { QueueBoxError } from '@queuebox/core';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { classifyPostgresError, postgresError } from './classify-error.js';

/** An error as postgres.js raises it for an ErrorResponse of the server. */
const server = (code: string, message = 'refused') =>
  new postgres.PostgresError({ code, message, severity: 'ERROR' });
/** A socket or postgres.js connection error: a plain Error with a `code`. */
const socket = (code: string) => Object.assign(new Error(`write ${code} 127.0.0.1:5432`), { code });

describe('classifyPostgresError: transient', () => {
  it.each([
    ['ECONNREFUSED'],
    ['ECONNRESET'],
    ['EPIPE'],
    ['ETIMEDOUT'],
    ['ENOTFOUND'],
    ['EHOSTUNREACH'],
    ['CONNECTION_CLOSED'],
    ['CONNECTION_ENDED'],
    ['CONNECTION_DESTROYED'],
    ['CONNECT_TIMEOUT'],
  ])('a lost or refused connection: %s', (code) => {
    expect(classifyPostgresError(socket(code))).toEqual({
      errorClass: 'transient',
      code: 'database_unavailable',
      driverCode: code,
    });
  });

  it('a refused connection to every address of a host (AggregateError)', () => {
    const error = new AggregateError([socket('ECONNREFUSED'), socket('ECONNREFUSED')], '');
    expect(classifyPostgresError(error)).toMatchObject({
      errorClass: 'transient',
      driverCode: 'ECONNREFUSED',
    });
  });

  it.each([
    ['40001', 'database_conflict'], // serialization_failure
    ['40P01', 'database_conflict'], // deadlock_detected
    ['55006', 'database_conflict'], // object_in_use
    ['57014', 'database_unavailable'], // query_canceled: statement_timeout
    ['55P03', 'database_unavailable'], // lock_not_available: lock_timeout
    ['53300', 'database_unavailable'], // too_many_connections
    ['53200', 'database_unavailable'], // out_of_memory
    ['53100', 'database_unavailable'], // disk_full
    ['57P01', 'database_unavailable'], // admin_shutdown
    ['57P02', 'database_unavailable'], // crash_shutdown
    ['57P03', 'database_unavailable'], // cannot_connect_now
    ['08000', 'database_unavailable'], // connection_exception
    ['08003', 'database_unavailable'], // connection_does_not_exist
    ['08006', 'database_unavailable'], // connection_failure
    ['08001', 'database_unavailable'], // sqlclient_unable_to_establish_sqlconnection
    ['08P01', 'database_unavailable'], // protocol_violation
    ['40003', 'database_unavailable'], // statement_completion_unknown
    ['25006', 'database_unavailable'], // read_only_sql_transaction: a standby after failover
  ])('SQLSTATE %s', (sqlState, code) => {
    expect(classifyPostgresError(server(sqlState))).toEqual({
      errorClass: 'transient',
      code,
      driverCode: sqlState,
    });
  });

  it('the cancel postgres.js raises itself (57014 on a plain Error)', () => {
    expect(classifyPostgresError(socket('57014')).errorClass).toBe('transient');
  });
});

describe('classifyPostgresError: permanent', () => {
  it.each([
    ['23505'], // unique_violation
    ['23502'], // not_null_violation
    ['23503'], // foreign_key_violation
    ['23514'], // check_violation
    ['23P01'], // exclusion_violation
    ['22P02'], // invalid_text_representation
    ['22021'], // character_not_in_repertoire: invalid byte sequence
    ['22001'], // string_data_right_truncation: value too long
    ['22P05'], // untranslatable_character
    ['22003'], // numeric_value_out_of_range
    ['22007'], // invalid_datetime_format
    ['22008'], // datetime_field_overflow
    ['22P04'], // bad_copy_file_format
    ['2200N'], // invalid_xml_content
    ['40002'], // transaction_integrity_constraint_violation: a deferred constraint at COMMIT
  ])('SQLSTATE %s: the data itself is refused', (sqlState) => {
    expect(classifyPostgresError(server(sqlState))).toEqual({
      errorClass: 'permanent',
      code: 'storage_rejected',
      driverCode: sqlState,
    });
  });
});

describe('classifyPostgresError: unknown causes count as transient', () => {
  it.each([
    ['42P01'], // undefined_table: a schema problem, not the message's
    ['42501'], // insufficient_privilege
    ['42601'], // syntax_error: a bug
    ['XX000'], // internal_error
    ['0A000'], // feature_not_supported
  ])('SQLSTATE %s', (sqlState) => {
    expect(classifyPostgresError(server(sqlState))).toEqual({
      errorClass: 'transient',
      code: 'internal',
      driverCode: sqlState,
    });
  });

  it('errors without a code, postgres.js usage errors and non-errors', () => {
    expect(classifyPostgresError(new Error('boom'))).toMatchObject({
      errorClass: 'transient',
      driverCode: null,
    });
    expect(classifyPostgresError(socket('UNDEFINED_VALUE'))).toMatchObject({
      errorClass: 'transient',
      code: 'internal',
    });
    expect(classifyPostgresError('text').errorClass).toBe('transient');
    expect(classifyPostgresError(null).errorClass).toBe('transient');
  });

  it('keeps the class of an error already classified', () => {
    const timeout = new QueueBoxError('database_unavailable', 'no answer', { retryable: true });
    expect(classifyPostgresError(timeout)).toEqual({
      errorClass: 'transient',
      code: 'database_unavailable',
      driverCode: null,
    });
  });
});

describe('postgresError', () => {
  it('builds a permanent QueueBoxError with the driver error as its cause', () => {
    const cause = server('22001', 'value too long for type character varying(255)');
    const error = postgresError(cause, 'store the message');
    expect(error).toBeInstanceOf(QueueBoxError);
    expect(error.code).toBe('storage_rejected');
    expect(error.retryable).toBe(false);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe(
      'The database refused to store the message (22001): the data can never be stored as it is.',
    );
  });

  it('builds a transient one for a lost connection, and passes a QueueBoxError through', () => {
    const error = postgresError(socket('CONNECTION_CLOSED'), 'store the message');
    expect(error.code).toBe('database_unavailable');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      'The database could not store the message (CONNECTION_CLOSED); a retry can succeed.',
    );
    expect(postgresError(error, 'again')).toBe(error);
  });
});
