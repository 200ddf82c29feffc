import type { DatabaseConfig } from '@queuebox/core';
import { dialectDatabaseConfig, type DatabaseConfigInput } from '@queuebox/testing';

export { appConfigWith, type DatabaseConfigInput } from '@queuebox/testing';

/**
 * Test support for this package: a SQL Server `database` block the way @queuebox/config builds
 * it from a `jdbc:sqlserver://` URL (host, port, database, and the URL's other properties).
 */
export function databaseConfig(input: DatabaseConfigInput = {}): DatabaseConfig {
  return dialectDatabaseConfig(
    {
      type: 'sqlserver',
      port: 1433,
      database: 'queuebox',
      username: 'sa',
      password: 'QueueBox_Test_1',
      url: (host, port, name) => `jdbc:sqlserver://${host}:${port};databaseName=${name}`,
    },
    input,
  );
}
