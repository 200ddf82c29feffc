/** Rules of `server`, `database`, `outbox.capture`, `admin` and `retention` (spec §12.2, §3.6, §11.6, §17.4). */
import type { DatabaseType } from '@queuebox/core';
import { databaseUrlType, parseDatabaseUrl, type ParsedDatabaseUrl } from './database-url.js';
import { adminGuardProblem, migrationGuardMessage, renamedSchemaKeys } from './guards.js';
import type { Path, Problems } from './problems.js';
import type { RawConfig } from './schema.js';
import { checkInboundAuth, requireText } from './validate-blocks.js';
import { DURATION_HINT, SQL_IDENTIFIER, isBlank, parseDuration } from './values.js';

const DATABASE_TYPES: readonly DatabaseType[] = ['postgresql', 'sqlserver'];
const URL_FORMS: Record<DatabaseType, string> = {
  postgresql: 'jdbc:postgresql://, postgres:// or postgresql://',
  sqlserver: 'jdbc:sqlserver://',
};
const CAPTURE_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const CAPTURE_SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function validateServer(config: RawConfig, problems: Problems): void {
  const { httpPort, managementPort } = config.server;
  if (managementPort !== null && managementPort === httpPort) {
    problems.add(
      ['server', 'managementPort'],
      `must differ from server.httpPort; both are ${httpPort}`,
    );
  }
}

/** Returns the parsed URL when the type and the URL are usable. */
export function validateDatabase(
  config: RawConfig,
  problems: Problems,
): ParsedDatabaseUrl | undefined {
  const db = config.database;
  let parsed: ParsedDatabaseUrl | undefined;
  const type = DATABASE_TYPES.find((t) => t === db.type);
  if (type === undefined) {
    problems.add(
      ['database', 'type'],
      `Unknown database type '${db.type}'; set one of ${DATABASE_TYPES.join(', ')}`,
    );
  } else if (!problems.has(['database', 'url']) && !isBlank(db.url)) {
    if (databaseUrlType(db.url) !== type) {
      problems.add(
        ['database', 'url'],
        `must match database.type ${type}: start it with ${URL_FORMS[type]}`,
      );
    } else {
      const result = parseDatabaseUrl(db.url);
      if (result.ok) parsed = result.value;
      else problems.add(['database', 'url'], `is not a valid ${type} URL: ${result.reason}`);
    }
  }
  requireText(problems, ['database', 'url'], db.url);
  // A postgres:// URL may carry the credentials; the keys win when both are set. A broken URL
  // that looks as if it carries them does not count against the keys.
  const urlMaySupply = parsed === undefined && /^postgres(?:ql)?:\/\/[^/]*@/i.test(db.url.trim());
  if (
    db.username === null &&
    parsed?.username == null &&
    !urlMaySupply &&
    !problems.has(['database', 'username'])
  ) {
    problems.add(
      ['database', 'username'],
      'required; set it in the YAML file or with QUEUEBOX_DATABASE_USERNAME',
    );
  }
  requireText(problems, ['database', 'username'], db.username);
  if (
    db.password === null &&
    parsed?.password == null &&
    !urlMaySupply &&
    !problems.has(['database', 'password'])
  ) {
    problems.add(
      ['database', 'password'],
      'required; set it in the YAML file or with QUEUEBOX_DATABASE_PASSWORD',
    );
  }
  checkIdentifiers(config, problems);
  if (db.migrate && !problems.has(['database'])) {
    const renamed = renamedSchemaKeys(db);
    if (renamed.length > 0) problems.add(['database', 'migrate'], migrationGuardMessage(renamed));
  }
  return parsed;
}

function identifier(problems: Problems, path: Path, name: string): void {
  if (problems.has(path)) return;
  if (isBlank(name)) problems.add(path, 'must not be blank');
  else if (!SQL_IDENTIFIER.test(name)) {
    problems.add(
      path,
      `'${name}' is not a valid SQL identifier; start with a letter or an underscore and use only letters, digits and underscores`,
    );
  }
}

function checkIdentifiers(config: RawConfig, problems: Problems): void {
  const db = config.database;
  identifier(problems, ['database', 'outboxTableName'], db.outboxTableName);
  identifier(problems, ['database', 'inboxTableName'], db.inboxTableName);
  for (const table of ['outbox', 'inbox'] as const) {
    for (const [key, column] of Object.entries<string>(db.columnMapping[table])) {
      identifier(problems, ['database', 'columnMapping', table, key], column);
    }
  }
}

export function validateCapture(
  config: RawConfig,
  parsed: ParsedDatabaseUrl | undefined,
  problems: Problems,
): void {
  const capture = config.outbox.capture;
  const path = ['outbox', 'capture'];
  const dbType = DATABASE_TYPES.find((t) => t === config.database.type);
  const modeFor: Record<DatabaseType, string> = {
    postgresql: 'postgres-logical',
    sqlserver: 'sqlserver-cdc',
  };
  if (capture.mode !== 'polling' && dbType !== undefined && capture.mode !== modeFor[dbType]) {
    const needs = capture.mode === 'postgres-logical' ? 'postgresql' : 'sqlserver';
    problems.add(
      [...path, 'mode'],
      `${capture.mode} works only with database.type ${needs}; this database is ${dbType}`,
    );
  }
  if (!capture.enabled) return;
  if (capture.mode === 'polling') {
    const hint = dbType === undefined ? 'postgres-logical or sqlserver-cdc' : modeFor[dbType];
    problems.add(
      [...path, 'enabled'],
      `capture needs a mode; set outbox.capture.mode to ${hint}, or set enabled to false`,
    );
  }
  const named = (key: string, value: string, rule: RegExp): void => {
    if (!rule.test(value)) problems.add([...path, key], `'${value}' must match ${rule.source}`);
  };
  named('identity', capture.identity, CAPTURE_NAME);
  named('publication', capture.publication, CAPTURE_NAME);
  named('slot', capture.slot, CAPTURE_NAME);
  if (capture.schema !== null) named('schema', capture.schema, CAPTURE_SCHEMA);
  if (isBlank(capture.stateDirectory)) {
    problems.add(
      [...path, 'stateDirectory'],
      'required when capture is enabled; name a durable directory such as /var/lib/queuebox/capture',
    );
  }
  const hosts = parsed?.connection.hosts.length ?? 0;
  if (hosts > 1 && capture.connection.hostname === null) {
    problems.add(
      [...path, 'connection', 'hostname'],
      'required because database.url names several hosts; name the one capture connects to',
    );
  }
  requireText(problems, [...path, 'connection', 'hostname'], capture.connection.hostname);
}

export function validateAdmin(config: RawConfig, problems: Problems): void {
  checkInboundAuth(problems, ['admin', 'auth'], config.admin.auth);
  const guard = adminGuardProblem(config.admin);
  if (guard !== undefined) problems.add(['admin'], guard);
}

/** Sub-blocks are checked only while retention is enabled (spec §12.2). */
export function validateRetention(config: RawConfig, problems: Problems): void {
  if (!config.retention.enabled) return;
  for (const table of ['outbox', 'inbox'] as const) {
    const block = config.retention[table];
    const path = ['retention', table];
    if (table === 'inbox' && block.policy === 'COUNT') {
      problems.add(
        [...path, 'policy'],
        'The inbox retention does not support the COUNT policy. QueueBox deletes no inbox row under that policy, so the table grows without bound. Use AGE or DISABLED.',
      );
      continue;
    }
    if (block.policy === 'AGE') {
      if (block.maxAge === null)
        problems.add([...path, 'maxAge'], 'required by policy AGE; write a duration such as 7d');
      else if (parseDuration(block.maxAge) === undefined) {
        problems.add([...path, 'maxAge'], `'${block.maxAge}' is not a duration; ${DURATION_HINT}`);
      }
    }
    if (
      block.policy === 'COUNT' &&
      (block.maxCount === null || block.maxCount <= 0) &&
      !problems.has([...path, 'maxCount'])
    ) {
      problems.add([...path, 'maxCount'], 'required by policy COUNT and must be greater than 0');
    }
    if (block.policy === 'DISABLED') continue;
    const interval = parseDuration(block.cleanupInterval);
    if (interval === undefined) {
      problems.add(
        [...path, 'cleanupInterval'],
        `'${block.cleanupInterval}' is not a duration; ${DURATION_HINT}`,
      );
    } else if (interval === 0) {
      problems.add(
        [...path, 'cleanupInterval'],
        'must be greater than 0s; a zero interval would run the cleanup without pause',
      );
    }
    if (block.batchSize <= 0 && !problems.has([...path, 'batchSize'])) {
      problems.add([...path, 'batchSize'], 'must be greater than 0');
    }
  }
}
