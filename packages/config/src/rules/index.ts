/**
 * The rules across keys, run once on the whole parsed tree in the reference's order, and the
 * rules of `server`, `database`, `outbox.capture`, `admin` and `retention` (spec §12.2, §3.6,
 * §11.6, §17.4). A rule reads only values without a problem (`Rules.has`); should one still trip
 * over a value broken in a way it did not foresee, the problems already found are what the
 * operator needs, so the rule's own failure is dropped only while other problems exist.
 */
import type { DatabaseType } from '@queuebox/core';
import { v } from '../schema/kit.js';
import { databaseUrlType, parseDatabaseUrl, type ParsedDatabaseUrl } from '../database-url.js';
import { adminGuardProblem, migrationGuardMessage, renamedSchemaKeys } from '../guards.js';
import type { RawConfig } from '../schema/config.js';
import type { ContributedKind } from '../schema/contributed.js';
import { DURATION_HINT, isBlank, parseDuration } from '../values.js';
import { checkDestinations, checkRoutes, checkSources } from './kinds.js';
import { checkInboundAuth, requireText, rulesOver, type Rules } from './shared.js';

type Rule = (config: RawConfig, rules: Rules, brokers: readonly ContributedKind[]) => void;

const RULES: readonly Rule[] = [
  checkServer,
  (config, rules) => checkCapture(config, checkDatabase(config, rules), rules),
  checkDestinations,
  checkRoutes,
  checkSources,
  checkAdmin,
  checkRetention,
];

export const crossKeyRules = (brokers: readonly ContributedKind[]) =>
  v.rawCheck<RawConfig>(({ dataset, addIssue }) => {
    const rules = rulesOver(() => dataset.issues ?? [], addIssue);
    for (const rule of RULES) {
      try {
        rule(dataset.value as RawConfig, rules, brokers);
      } catch (error: unknown) {
        if (dataset.issues === undefined) throw error;
      }
    }
  });

const DATABASE_TYPES: readonly DatabaseType[] = ['postgresql', 'sqlserver'];
const URL_FORMS: Record<DatabaseType, string> = {
  postgresql: 'jdbc:postgresql://, postgres:// or postgresql://',
  sqlserver: 'jdbc:sqlserver://',
};
const CAPTURE_MODES = { postgresql: 'postgres-logical', sqlserver: 'sqlserver-cdc' } as const;
const CAPTURE_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const CAPTURE_SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function checkServer(config: RawConfig, rules: Rules): void {
  const { httpPort, managementPort } = config.server;
  if (rules.has(['server'])) return;
  if (managementPort !== null && managementPort === httpPort) {
    rules.add(
      ['server', 'managementPort'],
      `must differ from server.httpPort; both are ${httpPort}`,
    );
  }
}

/** The database type when it is one QueueBox knows. */
const databaseType = (config: RawConfig, rules: Rules): DatabaseType | undefined =>
  rules.has(['database', 'type'])
    ? undefined
    : DATABASE_TYPES.find((t) => t === config.database.type);

/** Returns the parsed URL when the type and the URL are usable. */
function checkDatabase(config: RawConfig, rules: Rules): ParsedDatabaseUrl | undefined {
  const db = config.database;
  const url = rules.has(['database', 'url']) ? undefined : db.url;
  let parsed: ParsedDatabaseUrl | undefined;
  const type = databaseType(config, rules);
  if (type === undefined) {
    if (!rules.has(['database', 'type'])) {
      rules.add(
        ['database', 'type'],
        `Unknown database type '${db.type}'; set one of ${DATABASE_TYPES.join(', ')}`,
      );
    }
  } else if (url !== undefined && !isBlank(url)) {
    if (databaseUrlType(url) !== type) {
      rules.add(
        ['database', 'url'],
        `must match database.type ${type}: start it with ${URL_FORMS[type]}`,
      );
    } else {
      const result = parseDatabaseUrl(url);
      if (result.ok) parsed = result.value;
      else rules.add(['database', 'url'], `is not a valid ${type} URL: ${result.reason}`);
    }
  }
  requireText(rules, ['database', 'url'], url);
  // A postgres:// URL may carry the credentials; the keys win when both are set. A broken URL
  // that looks as if it carries them does not count against the keys.
  const urlMaySupply =
    parsed === undefined && url !== undefined && /^postgres(?:ql)?:\/\/[^/]*@/i.test(url.trim());
  for (const key of ['username', 'password'] as const) {
    if (
      db[key] === null &&
      parsed?.[key] == null &&
      !urlMaySupply &&
      !rules.has(['database', key])
    ) {
      rules.add(
        ['database', key],
        `required; set it in the YAML file or with QUEUEBOX_DATABASE_${key.toUpperCase()}`,
      );
    }
    if (key === 'username') requireText(rules, ['database', 'username'], db.username);
  }
  if (db.migrate && !rules.has(['database'])) {
    const renamed = renamedSchemaKeys(db);
    if (renamed.length > 0) rules.add(['database', 'migrate'], migrationGuardMessage(renamed));
  }
  return parsed;
}

function checkCapture(
  config: RawConfig,
  parsed: ParsedDatabaseUrl | undefined,
  rules: Rules,
): void {
  const path = ['outbox', 'capture'];
  // The capture rules wait until every capture key parsed: each reads several of them.
  if (rules.has(path)) return;
  const capture = config.outbox.capture;
  const dbType = databaseType(config, rules);
  const mode = capture.mode;
  if (mode !== 'polling' && dbType !== undefined && mode !== CAPTURE_MODES[dbType]) {
    const needs = mode === 'postgres-logical' ? 'postgresql' : 'sqlserver';
    rules.add(
      [...path, 'mode'],
      `${mode} works only with database.type ${needs}; this database is ${dbType}`,
    );
  }
  if (!capture.enabled) return;
  if (mode === 'polling') {
    const hint = dbType === undefined ? 'postgres-logical or sqlserver-cdc' : CAPTURE_MODES[dbType];
    rules.add(
      [...path, 'enabled'],
      `capture needs a mode; set outbox.capture.mode to ${hint}, or set enabled to false`,
    );
  }
  const named = (key: 'identity' | 'publication' | 'slot' | 'schema', rule: RegExp): void => {
    const value = capture[key];
    if (value !== null && !rule.test(value))
      rules.add([...path, key], `'${value}' must match ${rule.source}`);
  };
  named('identity', CAPTURE_NAME);
  named('publication', CAPTURE_NAME);
  named('slot', CAPTURE_NAME);
  named('schema', CAPTURE_SCHEMA);
  if (isBlank(capture.stateDirectory)) {
    rules.add(
      [...path, 'stateDirectory'],
      'required when capture is enabled; name a durable directory such as /var/lib/queuebox/capture',
    );
  }
  if ((parsed?.connection.hosts.length ?? 0) > 1 && capture.connection.hostname === null) {
    rules.add(
      [...path, 'connection', 'hostname'],
      'required because database.url names several hosts; name the one capture connects to',
    );
  }
}

function checkAdmin(config: RawConfig, rules: Rules): void {
  if (rules.blocked(['admin'])) return;
  checkInboundAuth(rules, ['admin', 'auth'], config.admin.auth);
  if (rules.has(['admin', 'enabled']) || rules.has(['admin', 'insecure'])) return;
  const guard = adminGuardProblem(config.admin);
  if (guard !== undefined) rules.add(['admin'], guard);
}

/** Sub-blocks are checked only while retention is enabled (spec §12.2). */
function checkRetention(config: RawConfig, rules: Rules): void {
  if (rules.has(['retention', 'enabled']) || rules.blocked(['retention'])) return;
  if (!config.retention.enabled) return;
  for (const table of ['outbox', 'inbox'] as const) {
    const path = ['retention', table];
    if (rules.blocked(path) || rules.has([...path, 'policy'])) continue;
    const block = config.retention[table];
    if (table === 'inbox' && block.policy === 'COUNT') {
      rules.add(
        [...path, 'policy'],
        'The inbox retention does not support the COUNT policy. QueueBox deletes no inbox row under that policy, so the table grows without bound. Use AGE or DISABLED.',
      );
      continue;
    }
    if (block.policy === 'AGE' && !rules.has([...path, 'maxAge'])) {
      if (block.maxAge === null)
        rules.add([...path, 'maxAge'], 'required by policy AGE; write a duration such as 7d');
      else if (parseDuration(block.maxAge) === undefined) {
        rules.add([...path, 'maxAge'], `'${block.maxAge}' is not a duration; ${DURATION_HINT}`);
      }
    }
    if (
      block.policy === 'COUNT' &&
      !rules.has([...path, 'maxCount']) &&
      (block.maxCount === null || block.maxCount <= 0)
    ) {
      rules.add([...path, 'maxCount'], 'required by policy COUNT and must be greater than 0');
    }
    if (block.policy === 'DISABLED') continue;
    const interval = rules.has([...path, 'cleanupInterval'])
      ? null
      : parseDuration(block.cleanupInterval);
    if (interval === undefined) {
      rules.add(
        [...path, 'cleanupInterval'],
        `'${block.cleanupInterval}' is not a duration; ${DURATION_HINT}`,
      );
    } else if (interval === 0) {
      rules.add(
        [...path, 'cleanupInterval'],
        'must be greater than 0s; a zero interval would run the cleanup without pause',
      );
    }
    if (!rules.has([...path, 'batchSize']) && block.batchSize <= 0) {
      rules.add([...path, 'batchSize'], 'must be greater than 0');
    }
  }
}
