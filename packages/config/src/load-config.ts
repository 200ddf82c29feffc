/**
 * Loads the configuration (spec §12.1): `QUEUEBOX_*` variables over one YAML file
 * (`QUEUEBOX_CONFIG_FILE`, default `/etc/queuebox/queuebox.yml`); the packaged demo YAML only
 * when there is no file, no configuration variable and no `QUEUEBOX_CONFIG_FILE`. Every problem
 * of every source is collected and thrown as one ConfigError.
 */
import { readFileSync } from 'node:fs';
import type { AppConfig } from '@queuebox/core';
import { assemble, deepFreeze } from './assemble.js';
import { CONFIG_FILE_VARIABLE, DEFAULT_CONFIG_FILE } from './env-names.js';
import { ConfigError } from './config-error.js';
import { Problems } from './problems.js';
import {
  envPaths,
  mergeNodes,
  parseYaml,
  readEnvSource,
  YamlSyntaxError,
  type Env,
  type RawNode,
} from './raw-input.js';
import { reportIssues, toPlain } from './issues.js';
import { configSchemas, type RawConfig } from './schema/config.js';
import type { BrokerConfigSource } from './schema/contributed.js';
import { asNode, binds, v } from './schema/kit.js';
import { withSecretReader } from './schema/scalars.js';
import { parseDatabaseUrl } from './database-url.js';

export interface LoadConfigOptions {
  /** The process environment; `process.env` when not given. Nothing else in the package reads it. */
  readonly env?: Env;
  /** The demo configuration packaged with the app, as YAML text. */
  readonly demoConfigYaml?: string;
  /** The file read when `QUEUEBOX_CONFIG_FILE` is not set; `/etc/queuebox/queuebox.yml` by default. */
  readonly defaultConfigFile?: string;
  /**
   * Reads a file (the configuration file and `file:` secrets): its text, or undefined when it does
   * not exist. Throwing means it exists but cannot be read.
   */
  readonly readFile?: (path: string) => string | undefined;
  /**
   * The brokers whose destinations and sources the configuration may hold: the descriptors of
   * the provider registry (`BrokerDescriptor.config` gives each one's block). None when not
   * given: only `http` destinations and sources load then. Hand the same list to every load.
   */
  readonly brokers?: readonly BrokerConfigSource[];
}

const NO_BROKERS: readonly BrokerConfigSource[] = [];

export const DEMO_SOURCE_NAME = 'the packaged demo configuration';

export function loadConfig(options: LoadConfigOptions = {}): AppConfig {
  return loadConfigTree(options).config;
}

/** What `loadConfig` read, for `queuebox config print`: where each value came from. */
export interface LoadedConfigTree {
  readonly config: AppConfig;
  /** The file (or the demo) and the variables as merged, before the schema read them. */
  readonly merged: RawNode | undefined;
  /** The YAML source read: a path, DEMO_SOURCE_NAME, or null when only variables configure. */
  readonly fileName: string | null;
}

export function loadConfigTree(options: LoadConfigOptions = {}): LoadedConfigTree {
  const env = options.env ?? process.env;
  const readFile = options.readFile ?? readFileIfExists;
  const schemas = configSchemas(options.brokers ?? NO_BROKERS);
  const schemaNode = asNode(schemas.schema);
  const problems = new Problems();
  const variables = readEnvSource(env, (segments) => binds(schemaNode, segments), problems);
  const configFileVariable = env[CONFIG_FILE_VARIABLE];
  const filePath = configFileVariable ?? options.defaultConfigFile ?? DEFAULT_CONFIG_FILE;

  let yamlText: string | undefined;
  let yamlName = filePath;
  try {
    yamlText = readFile(filePath);
  } catch (error: unknown) {
    throw ConfigError.fromProblems([
      `${filePath}: cannot read the configuration file (${errorCode(error)})`,
    ]);
  }
  // The demo never merges with a file, and never wakes up behind an operator's variables.
  if (yamlText === undefined && variables.names.length === 0 && configFileVariable === undefined) {
    yamlText = options.demoConfigYaml;
    yamlName = DEMO_SOURCE_NAME;
  }

  let file: RawNode | null = null;
  if (yamlText !== undefined) {
    try {
      file = parseYaml(yamlText, yamlName, env, problems);
    } catch (error: unknown) {
      if (error instanceof YamlSyntaxError) throw ConfigError.fromProblems([error.message]);
      throw error;
    }
  }
  if (file === null && variables.tree === null) {
    problems.throwIfAny();
    throw new ConfigError(noConfigurationMessage(filePath));
  }
  const merged =
    variables.tree === null ? (file ?? undefined) : mergeNodes(file ?? undefined, variables.tree);
  if (merged !== undefined) problems.setEnvPaths(envPaths(merged));

  const plain = merged === undefined ? {} : toPlain(merged);
  const result = withSecretReader(secretReader(readFile), () =>
    v.safeParse(schemas.checked, plain),
  );
  reportIssues(result.issues ?? [], merged, problems);
  problems.throwIfAny();
  const raw = result.output as RawConfig;
  const databaseUrl = parseDatabaseUrl(raw.database.url);
  if (!databaseUrl.ok) throw ConfigError.fromProblems(['database.url: cannot be read']);
  return {
    config: deepFreeze(assemble(raw, databaseUrl.value, schemas.brokers)),
    merged,
    fileName: file === null ? null : yamlName,
  };
}

/** Each secret file is read once per load, however many keys name it. */
function secretReader(
  readFile: (path: string) => string | undefined,
): (path: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (path) => {
    if (!cache.has(path)) {
      let content: string | undefined;
      try {
        content = readFile(path);
      } catch {
        content = undefined;
      }
      cache.set(path, content);
    }
    return cache.get(path);
  };
}

function readFileIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error: unknown) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

function errorCode(error: unknown): string {
  if (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string'
  )
    return error.code;
  return error instanceof Error ? error.message : 'unknown error';
}

export function noConfigurationMessage(filePath: string): string {
  return (
    'No configuration was found. QueueBox read three sources and every one was empty. ' +
    '1. The QUEUEBOX_* environment variables, for example QUEUEBOX_DATABASE_URL, ' +
    'QUEUEBOX_DATABASE_USERNAME and QUEUEBOX_DATABASE_PASSWORD. ' +
    `2. The file ${filePath}, which ${CONFIG_FILE_VARIABLE} can rename. ` +
    `3. The packaged demo configuration, which QueueBox reads only when ${CONFIG_FILE_VARIABLE} is not set. ` +
    'Set the environment variables, or write the file.'
  );
}
