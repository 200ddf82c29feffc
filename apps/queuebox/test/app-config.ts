import { loadConfig } from '@queuebox/config';
import type { AppConfig } from '@queuebox/core';
import type { FreshDatabase } from '@queuebox/testing';
import { brokerConfigs } from '../src/providers.js';

/** A real AppConfig for a test database, built by the real loader from a YAML text. */
export function testConfig(db: Pick<FreshDatabase, 'jdbcUrl' | 'user'>, yaml: string): AppConfig {
  return loadConfig({
    brokers: brokerConfigs,
    env: {
      QUEUEBOX_CONFIG_FILE: '/virtual/queuebox.yml',
      QUEUEBOX_DATABASE_URL: db.jdbcUrl,
      QUEUEBOX_DATABASE_USERNAME: db.user,
      QUEUEBOX_DATABASE_PASSWORD: 'unused-by-trust-auth',
    },
    readFile: (path) => (path === '/virtual/queuebox.yml' ? yaml : undefined),
  });
}
