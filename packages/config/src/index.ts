/**
 * @queuebox/config: turns the `QUEUEBOX_*` variables, one YAML file (or the packaged demo) and
 * their `${VAR}` placeholders and `file:` secrets into one frozen, fully defaulted, validated
 * AppConfig, and reports every problem at once in the reference's error format (spec §12, §13).
 *
 * It does not touch the network or the database: DNS checks of `http.blockPrivateAddresses`,
 * JSONata compilation and the schema guard run at start-up in the packages that own them.
 */
export {
  loadConfig,
  noConfigurationMessage,
  DEMO_SOURCE_NAME,
  type LoadConfigOptions,
} from './load-config.js';
export type { BrokerConfigSource } from './schema/contributed.js';
export { ConfigError, formatProblems } from './config-error.js';
export { maskUrl } from './values.js';
export { describeConfig } from './assemble.js';
export {
  explainConfig,
  type ConfigExplanation,
  type ExplainedSetting,
  type SettingOrigin,
} from './explain-config.js';
export {
  parseDatabaseUrl,
  databaseUrlType,
  type ParsedDatabaseUrl,
  type DatabaseUrlResult,
} from './database-url.js';
export {
  renamedSchemaKeys,
  migrationGuardMessage,
  adminGuardProblem,
  ADMIN_GUARD_MESSAGE,
} from './guards.js';
export { DEFAULT_OUTBOX_COLUMNS, DEFAULT_INBOX_COLUMNS } from '@queuebox/core';
export { parseDuration } from './values.js';
export {
  CONFIG_FILE_VARIABLE,
  DEFAULT_CONFIG_FILE,
  yamlPathToEnvKey,
  envKeyToYamlPath,
} from './env-names.js';
