import { QueueBoxError } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { databaseConfig } from '../../test/support.js';
import { quoteIdentifier } from './identifiers.js';
import { tableNamesFrom } from './table-names.js';

describe('tableNamesFrom', () => {
  it('quotes the default names', () => {
    const names = tableNamesFrom(databaseConfig());
    expect(names.outbox).toBe('"outbox"');
    expect(names.inbox).toBe('"inbox"');
    expect(names.outboxColumns.topic).toBe('"topic"');
    expect(names.outboxColumns.maxAttempts).toBe('"max_attempts"');
    expect(names.inboxColumns.idempotencyKey).toBe('"idempotency_key"');
    expect(Object.keys(names.outboxColumns)).toHaveLength(17);
    expect(Object.keys(names.inboxColumns)).toHaveLength(18);
  });

  it('keeps the case of mapped names', () => {
    const names = tableNamesFrom(
      databaseConfig({ outboxTableName: 'App_Outbox', outboxColumns: { topic: 'EventTopic' } }),
    );
    expect(names.outbox).toBe('"App_Outbox"');
    expect(names.outboxColumns.topic).toBe('"EventTopic"');
  });

  it.each(['out"box', 'out box', '1outbox', 'outbox;drop', '', 'ünïcode'])(
    'refuses %j, naming the key',
    (bad) => {
      expect(() => tableNamesFrom(databaseConfig({ inboxTableName: bad }))).toThrow(
        /'database\.inboxTableName'/,
      );
      expect(() => tableNamesFrom(databaseConfig({ inboxColumns: { headers: bad } }))).toThrow(
        /'database\.columnMapping\.inbox\.headers'/,
      );
    },
  );

  it('raises config_invalid', () => {
    try {
      quoteIdentifier('a-b', 'database.outboxTableName');
      expect.unreachable();
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(QueueBoxError);
      expect((error as QueueBoxError).code).toBe('config_invalid');
    }
  });
});
