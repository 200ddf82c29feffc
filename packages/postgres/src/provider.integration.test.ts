import { systemClock } from '@queuebox/core';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appConfigWith,
  closedPort,
  configFor,
  databaseConfig,
  recordingLogger,
  startForwarder,
  queueBoxFailure,
} from '../test/support.js';
import { migrations, provider } from './index.js';
import { createPool } from './connection/pool.js';
import { createPostgresDatabase } from './postgres-database.js';
import { tableNamesFrom } from './schema/table-names.js';

const pg = await requireService('postgres', 'postgres: provider');

const PASSWORD = 'Pa55-w0rd-never-printed';

const failure = queueBoxFailure;

describe('opening a database that does not answer', () => {
  it('retries, then fails within the startup timeout with the reference message and no secret', async () => {
    const port = await closedPort();
    const logger = recordingLogger();
    const config = databaseConfig({
      port,
      password: PASSWORD,
      startupTimeoutMs: 1500,
      connectionTimeoutMs: 1000,
    });
    const started = Date.now();
    const error = await failure(
      provider.open(appConfigWith(config), { logger, clock: systemClock }),
    );
    const elapsed = Date.now() - started;

    expect(error.code).toBe('database_unavailable');
    expect(error.message).toMatch(
      /^The database did not answer inside 1500 ms, after [2-9] attempt\(s\)\. Check 'database\.url', the credentials, and the network\. Raise 'database\.startupTimeoutMs'/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(3000);

    const warnings = logger.messages('warn');
    expect(warnings[0]).toBe(
      `The database did not answer on attempt 1. QueueBox retries in 500 ms. Reason: Error: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(warnings[1]).toMatch(
      /^The database did not answer on attempt 2\. QueueBox retries in \d+ ms\. Reason: /,
    );
    for (const text of [error.message, ...warnings, JSON.stringify(error)]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('://');
    }
    expect(error.cause).toBeUndefined();
  });

  it('refuses a bad identifier before any connection attempt', async () => {
    const port = await closedPort();
    const config = databaseConfig({ port, outboxTableName: 'outbox; DROP TABLE x' });
    const started = Date.now();
    const error = await failure(
      provider.open(appConfigWith(config), { logger: recordingLogger(), clock: systemClock }),
    );
    expect(error.code).toBe('config_invalid');
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('refuses a SQL Server configuration', async () => {
    const config = { ...databaseConfig(), type: 'sqlserver' as const };
    const error = await failure(
      provider.open(appConfigWith(config), { logger: recordingLogger(), clock: systemClock }),
    );
    expect(error.code).toBe('config_invalid');
  });

  it('answers ping false within its bound when the database hangs', async () => {
    // Accepts connections and never answers: a database that hangs.
    const sockets = new Set<Socket>();
    const blackhole: Server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const address = blackhole.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const config = databaseConfig({ port });
    const database = createPostgresDatabase(createPool(config), config, tableNamesFrom(config), {
      logger: recordingLogger(),
      clock: systemClock,
    });
    try {
      const started = Date.now();
      expect(await database.ping(300)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      // Ending the hung connection first lets close() finish without its 5 s grace.
      const closed = new Promise((resolve) => blackhole.close(resolve));
      for (const socket of sockets) socket.destroy();
      await database.close();
      await closed;
    }
  });
});

describe.skipIf(!pg.available)('the PostgreSQL provider on a real database', () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('opens, migrates, passes the schema guard, pings, and closes', async () => {
    const logger = recordingLogger();
    const database = await provider.open(appConfigWith(configFor(db)), {
      logger,
      clock: systemClock,
    });
    try {
      const report = await database.migrate();
      expect(report.applied).toHaveLength(migrations.length);
      expect((await database.migrate()).applied).toEqual([]);
      await database.checkSchema();
      expect(await database.ping(2000)).toBe(true);
      expect(logger.messages('warn')).toEqual([]);
    } finally {
      await database.close();
    }
    expect(await database.ping(500)).toBe(false);
  });

  it('records a baseline through the port', async () => {
    if (!pg.available) return;
    const other = await createFreshDatabase(pg.url);
    try {
      const database = await provider.open(appConfigWith(configFor(other)), {
        logger: recordingLogger(),
        clock: systemClock,
      });
      try {
        await expect(database.migrate({ baseline: '99' })).rejects.toThrow(
          /The bundled versions are: 1, 2/,
        );
        // A baseline at the newest bundled version: the database holds them all, none applies.
        const newest = migrations[migrations.length - 1]!.version;
        await database.migrate({ baseline: newest });
        const rows = await other.sql<
          { version: string; type: string }[]
        >`SELECT version, type FROM flyway_schema_history`;
        expect(rows).toEqual([{ version: newest, type: 'BASELINE' }]);
      } finally {
        await database.close();
      }
    } finally {
      await other.drop();
    }
  });

  it('waits for a database that comes up after QueueBox', async () => {
    const port = await closedPort();
    const logger = recordingLogger();
    let forwarder: Server | undefined;
    const late = setTimeout(() => {
      void startForwarder(port, { host: db.host, port: db.port }).then(
        (server) => (forwarder = server),
      );
    }, 800);
    try {
      const database = await provider.open(
        appConfigWith(configFor(db, { port, startupTimeoutMs: 10_000 })),
        {
          logger,
          clock: systemClock,
        },
      );
      try {
        expect(logger.messages('warn').length).toBeGreaterThanOrEqual(1);
        expect(logger.messages('warn')[0]).toMatch(
          /^The database did not answer on attempt 1\. QueueBox retries in 500 ms\./,
        );
        expect(await database.ping(2000)).toBe(true);
      } finally {
        await database.close();
      }
    } finally {
      clearTimeout(late);
      const server = forwarder;
      if (server) await new Promise((resolve) => server.close(resolve));
    }
  });
});
