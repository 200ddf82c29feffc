import { loadConfig } from '@queuebox/config';
import { systemClock, type Logger } from '@queuebox/core';
import { loadDatabaseProvider } from '../providers.js';
import { readDemoConfig } from '../startup/demo-config.js';
import { step } from '../startup/step.js';

/**
 * `queuebox migrate [--baseline <version>]` (spec §17.3): the same configuration and pool wait
 * as the service, applies the bundled migrations whatever `database.migrate` says, then exits.
 */
export async function runMigrate(
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  baseline: string | null,
): Promise<void> {
  const config = await step('load the configuration', () =>
    loadConfig({ env, demoConfigYaml: readDemoConfig() }),
  );
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
