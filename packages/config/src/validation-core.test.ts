import { describe, expect, it } from 'vitest';
import { ADMIN_GUARD_MESSAGE, loadConfig, renamedSchemaKeys } from '../test/brokers.js';
import { DB_ENV, problems } from '../test/load.js';

describe('server and numbers (spec §12.2)', () => {
  it('checks port ranges and that the management port differs', () => {
    expect(problems('server: {httpPort: 0, managementPort: 70000}')).toEqual([
      'server.httpPort: must be between 1 and 65535',
      'server.managementPort: must be between 1 and 65535',
    ]);
    expect(problems('server: {httpPort: 9000, managementPort: 9000}')).toEqual([
      'server.managementPort: must differ from server.httpPort; both are 9000',
    ]);
  });

  it('reads whole milliseconds only and checks > 0 rules', () => {
    expect(
      problems(
        'outbox: {pollIntervalMs: 1.5, claimTimeoutMs: 0, retryBaseDelayMs: -1, concurrency: 0}\ninbox: {maxBodyBytes: 0, relay: {maxAttempts: 0}}',
      ),
    ).toEqual([
      "outbox.pollIntervalMs: '1.5' is not a whole number of milliseconds",
      'outbox.concurrency: must be greater than 0',
      'outbox.retryBaseDelayMs: must not be negative',
      'outbox.claimTimeoutMs: must be greater than 0',
      'inbox.maxBodyBytes: must be greater than 0',
      'inbox.relay.maxAttempts: must be greater than 0',
    ]);
    expect(problems('database: {poolSize: 3000000000}')).toEqual([
      'database.poolSize: must be at most 2147483647',
    ]);
  });

  it('reports a section that is not a map once, not each of its required keys', () => {
    expect(() =>
      loadConfig({ env: { QUEUEBOX_CONFIG_FILE: '/cfg.yml' }, readFile: () => 'database: 5' }),
    ).toThrow(
      'The configuration has 1 error. Fix each one and start QueueBox again.\n  - database: must be a section of keys, not a single value',
    );
  });

  it('accepts numbers written as strings, as variables give them', () => {
    expect(problems('outbox: {batchSize: "25"}')).toEqual([]);
  });
});

describe('schema names (spec §3.6)', () => {
  it('checks table and column names against the identifier rule', () => {
    expect(
      problems(
        'database:\n  migrate: false\n  outboxTableName: "app.outbox"\n  inboxTableName: ""\n  columnMapping:\n    inbox: {headers: "1headers"}',
      ),
    ).toEqual([
      "database.outboxTableName: 'app.outbox' is not a valid SQL identifier; start with a letter or an underscore and use only letters, digits, underscores and $",
      'database.inboxTableName: must not be blank',
      "database.columnMapping.inbox.headers: '1headers' is not a valid SQL identifier; start with a letter or an underscore and use only letters, digits, underscores and $",
    ]);
  });

  it('refuses a name PostgreSQL would cut to 63 characters, naming the key', () => {
    const at63 = `t${'x'.repeat(62)}`;
    const at72 = `outbox_${'y'.repeat(65)}`;
    expect(
      problems(
        `database:\n  migrate: false\n  outboxTableName: ${at72}\n  inboxTableName: ${at63}\n  columnMapping:\n    outbox: {payload: ${at72}}`,
      ),
    ).toEqual([
      `database.outboxTableName: '${at72}' is 72 characters long; an SQL identifier here has at most 63 (PostgreSQL would cut it and use another table)`,
      `database.columnMapping.outbox.payload: '${at72}' is 72 characters long; an SQL identifier here has at most 63 (PostgreSQL would cut it and use another table)`,
    ]);
    expect(problems('database:\n  migrate: false\n  outboxTableName: app$outbox')).toEqual([]);
  });

  it('stops renames while database.migrate is true, naming each renamed key', () => {
    expect(
      problems(
        'database:\n  outboxTableName: app_outbox\n  columnMapping:\n    inbox: {payload: body}',
      ),
    ).toEqual([
      "database.migrate: The bundled migrations create the default schema, so they cannot create the schema that database.outboxTableName, database.columnMapping.inbox describe. Set 'database.migrate' to false and apply your own schema.",
    ]);
    expect(problems('database:\n  migrate: false\n  outboxTableName: app_outbox')).toEqual([]);
    // A key set to its default name is not a rename.
    expect(problems('database:\n  columnMapping:\n    outbox: {topic: topic}')).toEqual([]);
  });

  it('lists renamed keys for the migrate command', () => {
    const config = loadConfig({
      env: DB_ENV,
      readFile: () => 'database:\n  migrate: false\n  inboxTableName: events_in',
    });
    expect(renamedSchemaKeys(config.database)).toEqual(['database.inboxTableName']);
  });
});

describe('capture (spec §10, §12.2)', () => {
  it('needs a mode, a state directory and valid names when enabled', () => {
    expect(
      problems('outbox:\n  capture: {enabled: true, identity: Queue-Box, slot: "9slot"}'),
    ).toEqual([
      'outbox.capture.enabled: capture needs a mode; set outbox.capture.mode to postgres-logical, or set enabled to false',
      "outbox.capture.identity: 'Queue-Box' must match ^[a-z][a-z0-9_]{0,62}$",
      "outbox.capture.slot: '9slot' must match ^[a-z][a-z0-9_]{0,62}$",
      'outbox.capture.stateDirectory: required when capture is enabled; name a durable directory such as /var/lib/queuebox/capture',
    ]);
  });

  it('refuses a mode of the other database', () => {
    expect(problems('outbox:\n  capture: {mode: sqlserver-cdc}')).toEqual([
      'outbox.capture.mode: sqlserver-cdc works only with database.type sqlserver; this database is postgresql',
    ]);
  });

  it('needs a host name when the URL names several hosts', () => {
    const yaml =
      'outbox:\n  capture: {enabled: true, mode: postgres-logical, stateDirectory: /var/lib/qb}';
    expect(problems(yaml, { QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://a:5432,b:5433/q' })).toEqual([
      'outbox.capture.connection.hostname: required because database.url names several hosts; name the one capture connects to',
    ]);
    const config = loadConfig({
      env: {
        ...DB_ENV,
        QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://a:5432,b:5433/q',
        QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_HOSTNAME: 'b',
      },
      readFile: () => yaml,
    });
    expect(config.outbox.capture.connection).toMatchObject({
      hostname: 'b',
      port: 5433,
      database: 'q',
      username: 'queuebox',
    });
  });
});

describe('admin guard (spec §11.6)', () => {
  it('refuses enabled admin routes without auth unless insecure', () => {
    expect(problems('admin: {enabled: true}')).toEqual([`admin: ${ADMIN_GUARD_MESSAGE}`]);
    expect(ADMIN_GUARD_MESSAGE).toBe(
      "The admin routes are enabled with no authentication. Set 'admin.auth' to a bearer token, an API key, or an HMAC signature. Set 'admin.insecure' to true only for a local test, or set 'admin.enabled' to false.",
    );
    expect(problems('admin: {enabled: true, insecure: true}')).toEqual([]);
    expect(problems('admin: {enabled: true, auth: {type: bearer, token: t}}')).toEqual([]);
    expect(problems('', { QUEUEBOX_ADMIN_ENABLED: 'true' })).toEqual([
      `admin: ${ADMIN_GUARD_MESSAGE} (set by QUEUEBOX_ADMIN_ENABLED)`,
    ]);
  });
});

describe('retention (spec §17.4)', () => {
  it('checks sub-blocks only while enabled', () => {
    expect(
      problems(
        'retention:\n  outbox: {policy: AGE, cleanupInterval: soon}\n  inbox: {policy: COUNT}',
      ),
    ).toEqual([]);
  });

  it('needs maxAge for AGE, a positive maxCount for COUNT, and valid intervals', () => {
    expect(
      problems(
        'retention:\n  enabled: true\n  outbox: {policy: COUNT, maxCount: 0, cleanupInterval: 10, batchSize: 0}\n  inbox: {policy: AGE}',
      ),
    ).toEqual([
      'retention.outbox.maxCount: required by policy COUNT and must be greater than 0',
      "retention.outbox.cleanupInterval: '10' is not a duration; write a whole number followed by s, m, h or d, such as 30s",
      'retention.outbox.batchSize: must be greater than 0',
      'retention.inbox.maxAge: required by policy AGE; write a duration such as 7d',
    ]);
    expect(
      problems(
        'retention:\n  enabled: true\n  outbox: {policy: AGE, maxAge: 7days, cleanupInterval: 0s}',
      ),
    ).toEqual([
      "retention.outbox.maxAge: '7days' is not a duration; write a whole number followed by s, m, h or d, such as 30s",
      'retention.outbox.cleanupInterval: must be greater than 0s; a zero interval would run the cleanup without pause',
    ]);
  });

  it('refuses COUNT on the inbox and lower-case policies', () => {
    expect(problems('retention:\n  enabled: true\n  inbox: {policy: COUNT, maxCount: 10}')).toEqual(
      [
        'retention.inbox.policy: The inbox retention does not support the COUNT policy. QueueBox deletes no inbox row under that policy, so the table grows without bound. Use AGE or DISABLED.',
      ],
    );
    expect(problems('retention:\n  outbox: {policy: age}')).toEqual([
      "retention.outbox.policy: 'age' is not one of AGE, COUNT, DISABLED; the value is case-sensitive, write AGE",
    ]);
  });
});
