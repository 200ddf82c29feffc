import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createFreshDatabase, freePort, requireService, startHttpSink } from '@queuebox/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '@queuebox/postgres';
import { assertBuilt, runQueueBox, startQueueBox, writeConfig } from './process.js';
import { commandsOnDatabase } from './process-suite.js';
import { eventually } from './service.js';
import { RELAY_OFF, UNREACHABLE_SINK } from './yaml-pieces.js';

/** What `migrate` prints on an empty database: every bundled version. */
const APPLIED_ALL = `Applied ${migrations.length} migration(s): ${migrations.map((m) => m.version).join(', ')}.`;

const pg = await requireService('postgres', 'app: the real process');
const pgUrl = pg.available ? pg.url : '';

describe('the queuebox command without a database', () => {
  beforeAll(assertBuilt);

  it('prints the usage to stderr and exits 2 on an unknown command', async () => {
    const result = await runQueueBox(['serve'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown command 'serve'.");
    expect(result.stderr).toContain('Usage: queuebox');
    expect(result.stdout).toBe('');
  });

  it('exits 2 on bad migrate arguments', async () => {
    expect((await runQueueBox(['migrate', '--baseline'], {})).code).toBe(2);
  });

  it('stops on a typo in the YAML file with the suggestion', async () => {
    const file = writeConfig(`${UNREACHABLE_SINK}\noutbox:\n  batchSzie: 5\n`);
    const result = await runQueueBox([], {
      QUEUEBOX_CONFIG_FILE: file,
      QUEUEBOX_DATABASE_URL: 'jdbc:postgresql://127.0.0.1:5432/test',
      QUEUEBOX_DATABASE_USERNAME: 'postgres',
      QUEUEBOX_DATABASE_PASSWORD: 'secret-password',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('outbox.batchSzie: unknown key; did you mean batchSize?');
  });

  it('fails a start whose database never answers with one line and no password', async () => {
    const closed = await freePort();
    const file = writeConfig(`${UNREACHABLE_SINK}\ndatabase:\n  startupTimeoutMs: 1200\n`);
    const result = await runQueueBox([], {
      QUEUEBOX_CONFIG_FILE: file,
      QUEUEBOX_DATABASE_URL: `jdbc:postgresql://127.0.0.1:${closed}/test`,
      QUEUEBOX_DATABASE_USERNAME: 'postgres',
      QUEUEBOX_DATABASE_PASSWORD: 'hunter2-secret',
    });
    expect(result.code).toBe(1);
    const errors = result.stdout.split('\n').filter((line) => line.includes('ERROR'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('QueueBox could not connect to the database.');
    expect(errors[0]).toContain('The database did not answer inside 1200 ms');
    expect(result.stdout + result.stderr).not.toContain('hunter2-secret');
  });
});

describe.skipIf(!pg.available)('the queuebox command on a real database', () => {
  const h = commandsOnDatabase(pgUrl, UNREACHABLE_SINK);

  it('migrates an empty database, then finds nothing to apply', async () => {
    const first = await runQueueBox(['migrate'], h.env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(APPLIED_ALL);
    const second = await runQueueBox(['migrate'], h.env);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('Applied');
    const [row] = await h.db.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM flyway_schema_history WHERE success`;
    expect(row?.n).toBe(migrations.length);
  });

  it('serves health, metrics and root, then drains and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const qb = startQueueBox([], {
      ...h.env,
      QUEUEBOX_SERVER_HTTPPORT: String(port),
      LOG_FORMAT: 'json',
    });
    try {
      await qb.waitFor('is listening on port');
      const base = `http://127.0.0.1:${port}`;
      expect(await (await fetch(`${base}/`)).text()).toBe('QueueBox is running!');
      const ready = await fetch(`${base}/health`);
      expect(ready.status).toBe(200);
      expect(
        ((await ready.json()) as { components: Record<string, unknown> }).components.database,
      ).toEqual({ status: 'up' });
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('queuebox_uptime_seconds');
    } finally {
      qb.child.kill('SIGTERM');
    }
    const result = await qb.exited;
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines.every((line) => line.service === 'queuebox' && typeof line['@timestamp'] === 'string'),
    ).toBe(true);
    expect(lines.map((line) => line.message)).toContain('Shutdown complete');
  });

  it('puts health and metrics on the management port when one is set', async () => {
    const port = await freePort();
    const management = await freePort();
    const qb = startQueueBox([], {
      ...h.env,
      QUEUEBOX_SERVER_HTTPPORT: String(port),
      QUEUEBOX_SERVER_MANAGEMENTPORT: String(management),
    });
    try {
      await qb.waitFor('is listening on port');
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${management}/metrics`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${management}/health/live`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      qb.child.kill('SIGTERM');
    }
    expect((await qb.exited).code).toBe(0);
  });

  it('takes sqlserver-cdc capture to the SQL Server provider: a closed port is a connection error, not a missing build', async () => {
    const port = await freePort();
    const file = writeConfig(
      `${UNREACHABLE_SINK}
outbox:
  capture:
    enabled: true
    mode: sqlserver-cdc
    stateDirectory: /var/lib/queuebox/capture
`,
    );
    const qb = startQueueBox([], {
      ...h.env,
      QUEUEBOX_CONFIG_FILE: file,
      QUEUEBOX_SERVER_HTTPPORT: String(port),
      QUEUEBOX_DATABASE_TYPE: 'sqlserver',
      QUEUEBOX_DATABASE_URL: `jdbc:sqlserver://127.0.0.1:${await freePort()};databaseName=queuebox;encrypt=false`,
      QUEUEBOX_DATABASE_STARTUPTIMEOUTMS: '1000',
      QUEUEBOX_DATABASE_CONNECTIONTIMEOUTMS: '1000',
    });
    void qb.waitFor('is listening on port', 15_000).then(
      () => qb.child.kill('SIGTERM'),
      () => undefined,
    );
    const result = await qb.exited;
    expect(result.stdout).not.toContain('is listening on port');
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('not available in this build');
    expect(result.stdout).toMatch(/Failed to connect to 127\.0\.0\.1:\d+/);
  });

  it('refuses to migrate a renamed schema even with migrate: false, creating nothing', async () => {
    const custom = await createFreshDatabase(pgUrl);
    try {
      await custom.sql`CREATE TABLE orders_outbox (id uuid PRIMARY KEY, subject text NOT NULL)`;
      await custom.sql`CREATE TABLE orders_inbox (id uuid PRIMARY KEY)`;
      const file = writeConfig(
        `${UNREACHABLE_SINK}
database:
  migrate: false
  outboxTableName: orders_outbox
  inboxTableName: orders_inbox
  columnMapping:
    outbox:
      topic: subject
`,
      );
      const result = await runQueueBox(['migrate'], {
        ...h.env,
        QUEUEBOX_CONFIG_FILE: file,
        QUEUEBOX_DATABASE_URL: custom.jdbcUrl,
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        'QueueBox could not migrate the database. Reason: The bundled migrations create the default schema, so they ' +
          'cannot create the schema that database.outboxTableName, database.inboxTableName, ' +
          "database.columnMapping.outbox describe. Set 'database.migrate' to false and apply your own schema.",
      );
      expect(result.stdout).not.toContain('Applied');
      const tables = await custom.sql<{ name: string }[]>`
        SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() ORDER BY table_name`;
      expect(tables.map((t) => t.name)).toEqual(['orders_inbox', 'orders_outbox']);
    } finally {
      await custom.drop();
    }
  });

  it('ends within the shutdown bounds on SIGTERM while destinations hang', async () => {
    // One receiver never answers a request; the other accepts TCP and never answers the TLS
    // handshake, so the request is still connecting (undici's connect timeout is 30 s here).
    const mute = await startHttpSink(() => undefined);
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    const shutdownTimeoutMs = 1000;
    const port = await freePort();
    const qb = startQueueBox([], {
      ...h.env,
      QUEUEBOX_SERVER_HTTPPORT: String(port),
      QUEUEBOX_CONFIG_FILE: writeConfig(`
outbox:
  pollIntervalMs: 50
  shutdownTimeoutMs: ${shutdownTimeoutMs}
${RELAY_OFF}destinations:
  mute:
    type: http
    baseUrl: ${mute.url}
    timeoutMs: 60000
  tls:
    type: http
    baseUrl: https://127.0.0.1:${silentPort}
    timeoutMs: 60000
routes:
  - topicPattern: "mute.*"
    destination: mute
  - topicPattern: "tls.*"
    destination: tls
`),
    });
    let killer: NodeJS.Timeout | undefined;
    try {
      await qb.waitFor('is listening on port');
      await h.db.sql`INSERT INTO outbox (topic, payload)
        SELECT t, '{}' FROM unnest(ARRAY['mute.a', 'mute.b', 'tls.a', 'tls.b']) AS t`;
      await eventually(() => mute.requests.length >= 2 && sockets.size >= 2);
      const started = performance.now();
      qb.child.kill('SIGTERM');
      // Past this the test fails: the bound of spec §17.2 is 5 s + 2 × shutdownTimeoutMs.
      killer = setTimeout(() => qb.child.kill('SIGKILL'), 15_000);
      const result = await qb.exited;
      const elapsed = performance.now() - started;
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Shutdown complete');
      expect(elapsed).toBeLessThan(5000 + 2 * shutdownTimeoutMs);
      // Abandoned, not lost: the rows wait for the reclaim step.
      const states = await h.db.sql<{ state: string }[]>`SELECT DISTINCT state FROM outbox`;
      expect(states.map((row) => row.state)).toEqual(['processing']);
    } finally {
      clearTimeout(killer);
      if (qb.child.exitCode === null) qb.child.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      await mute.close();
      await h.db.sql`DELETE FROM outbox`;
    }
  });

  it('refuses tables that have no migration history', async () => {
    const bare = await createFreshDatabase(pgUrl);
    try {
      await bare.sql`CREATE TABLE outbox (id uuid PRIMARY KEY)`;
      const result = await runQueueBox(['migrate'], {
        ...h.env,
        QUEUEBOX_DATABASE_URL: bare.jdbcUrl,
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        'QueueBox tables exist without a migration history. Run `queuebox migrate --baseline <version>` with the last version you applied by hand.',
      );
    } finally {
      await bare.drop();
    }
  });
});
