/**
 * How the package's tests load a YAML text: as the file `/cfg.yml`, with the database set by
 * variables unless a test says otherwise, and every broker (`brokers.ts`).
 */
import type { AppConfig } from '@queuebox/core';
import { ConfigError, loadConfig } from './brokers.js';

/** The database variables, and `/cfg.yml` as the configuration file. */
export const DB_ENV = {
  QUEUEBOX_CONFIG_FILE: '/cfg.yml',
  QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://localhost:5432/queuebox',
  QUEUEBOX_DATABASE_USERNAME: 'queuebox',
  QUEUEBOX_DATABASE_PASSWORD: 'secret',
};

/** Loads `yaml` as `/cfg.yml`, with `env` (the database variables by default). */
export const loadYaml = (yaml: string, env: Record<string, string> = DB_ENV): AppConfig =>
  loadConfig({ env, readFile: (path) => (path === '/cfg.yml' ? yaml : undefined) });

/** The problems `load` throws; none when it loads. */
export function problemsOf(load: () => unknown): readonly string[] {
  try {
    load();
  } catch (error: unknown) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

/** The problems of `yaml` with the database variables and `env` over them. */
export const problems = (yaml: string, env: Record<string, string> = {}): readonly string[] =>
  problemsOf(() => loadYaml(yaml, { ...DB_ENV, ...env }));

/** The problems `load` throws; a load that succeeds fails the test. */
export function refusals(load: () => unknown): readonly string[] {
  const found = problemsOf(load);
  if (found.length === 0) throw new Error('the configuration loaded');
  return found;
}
