import { loadConfig, migrationGuardMessage, renamedSchemaKeys } from '@queuebox/config';
import { QueueBoxError, systemClock, type Logger } from '@queuebox/core';
import { brokerConfigs, loadDatabaseProvider } from '../providers.js';
import { readDemoConfig } from '../startup/demo-config.js';
import { step } from '../startup/step.js';

/**
 * `queuebox migrate [--baseline <version>]` (spec §17.3): the same configuration and pool wait
 * as the service, applies the bundled migrations whatever `database.migrate` says, then exits.
 * Because it ignores `database.migrate`, it runs the migration guard itself: the configuration
 * checks renames only when `migrate: true`, and the bundled files would create the default
 * `outbox` and `inbox` tables beside a renamed schema (§17.3: a renamed schema cannot use the
 * command). Refused before the database is touched.
 */
export async function runMigrate(
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  baseline: string | null,
): Promise<void> {
  const config = await step('load the configuration', () =>
    loadConfig({ env, demoConfigYaml: readDemoConfig(), brokers: brokerConfigs }),
  );
  await step('migrate the database', () => {
    const renamed = renamedSchemaKeys(config.database);
    if (renamed.length > 0)
      throw new QueueBoxError('config_invalid', migrationGuardMessage(renamed));
  });
  const provider = await step('load the database provider', () =>
    loadDatabaseProvider(config.database.type),
  );
  const database = await step('connect to the database', () =>
    provider.open(config, { logger, clock: systemClock }),
  );
  try {
    const report = await step('migrate the database', () =>
      database.migrate(baseline === null ? {} : { baseline }),
    );
    if (report.applied.length === 0 && report.baseline === null)
      logger.info('The database schema is up to date.');
  } finally {
    await database.close();
  }
}
