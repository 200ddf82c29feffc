/**
 * What the soak runs against, each stopped by a function pushed onto `cleanups` as it starts: a
 * private PostgreSQL (its own initdb cluster on a free port, run as the `postgres` user, so the
 * machine's shared server is never touched), a RabbitMQ exchange and queue on the machine's
 * broker reached through a fault proxy, the HTTP sink (receivers.mjs), and three replicas
 * (replicas.mjs) with the configuration below, migrated and ready.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import postgres from 'postgres';
import {
  createRabbitKit,
  freePort,
  scratchDataDir,
  startFaultProxy,
  startPrivatePostgres,
  systemPostgresBinaries,
} from '@queuebox/testing';
import { startSoakSink } from './receivers.mjs';
import { Replica, migrate, writeReplicaConfig } from './replicas.mjs';

const PG_BIN = '/usr/lib/postgresql/15/bin';
/**
 * Above the PostgreSQL restart (a few seconds down, then the pools reconnect): a lease shorter
 * than an outage lets every claim of the moment run out, and each published row whose `sent`
 * write waited for the database is delivered again. Production's default is 300 s.
 */
export const CLAIM_TIMEOUT_MS = 30_000;

function replicaConfig({ port, pg, sink, broker, exchange }) {
  return {
    server: { httpPort: port },
    database: {
      type: 'postgresql',
      url: `jdbc:postgresql://127.0.0.1:${pg.port}/${pg.database}`,
      username: pg.username,
      password: pg.password,
      connectionTimeoutMs: 5000,
    },
    outbox: {
      pollIntervalMs: 100,
      claimTimeoutMs: CLAIM_TIMEOUT_MS,
      retryBaseDelayMs: 200,
      maxAttempts: 10,
    },
    inbox: { relay: { claimTimeoutMs: CLAIM_TIMEOUT_MS } },
    destinations: {
      orders: { type: 'http', baseUrl: sink.url, path: '/orders', timeoutMs: 10_000 },
      hooks: { type: 'http', baseUrl: sink.url, path: '/hooks', timeoutMs: 10_000 },
      broker: {
        type: 'rabbitmq',
        url: `amqp://guest:guest@127.0.0.1:${broker.port}`,
        exchange,
        exchangeType: 'topic',
      },
    },
    routes: [
      { topicPattern: 'order.*', destination: 'orders' },
      { topicPattern: 'stock.*', destination: 'broker' },
      { topicPattern: 'hook.*', destination: 'hooks' },
    ],
    sources: {
      webhooks: {
        path: '/webhooks',
        idempotencyKeyPath: '$.id',
        aggregateIdPath: '$.aggregate',
        eventTypePath: '$.type',
      },
    },
  };
}

/**
 * Starts everything. `database.pg` is the running PostgreSQL: the fault schedule replaces it when
 * it restarts the server (same data directory and port, `database.options`), and the cleanup
 * stops whichever one runs then.
 */
export async function startServices({ workDir, cleanups, event }) {
  // The private PostgreSQL (fsync off: the soak tests QueueBox, not the disk of a shared machine).
  const binaries = await systemPostgresBinaries(PG_BIN);
  const dataDir = await scratchDataDir('soak');
  cleanups.push(() => rmSync(dirname(dataDir), { recursive: true, force: true }));
  const pgOptions = {
    binaries,
    dataDir,
    port: await freePort(),
    database: 'soak',
    settings: { fsync: 'off', max_connections: '200' },
  };
  const database = { pg: await startPrivatePostgres(pgOptions), options: pgOptions };
  const { pg } = database;
  cleanups.push(() => database.pg.stop());
  event(`private PostgreSQL on port ${pg.port} (pid ${pg.pid})`);
  const sql = postgres(pg.url, { max: 4, onnotice: () => undefined });
  cleanups.push(() => sql.end({ timeout: 2 }));

  const kit = await createRabbitKit('amqp://guest:guest@127.0.0.1:5672', 'soak');
  cleanups.push(() => kit.cleanup());
  const exchange = await kit.exchange(kit.name('events'), 'topic');
  const queue = await kit.queue(kit.name('stock'), { exchange, patterns: ['#'] });
  const collector = await kit.collect(queue);
  const broker = await startFaultProxy({ target: { host: '127.0.0.1', port: 5672 } });
  cleanups.push(() => broker.close());
  const { sink, ledgers, counts: sinkCounts } = await startSoakSink();
  cleanups.push(() => sink.close());

  const replicas = [];
  for (const name of ['a', 'b', 'c']) {
    const port = await freePort();
    const configFile = writeReplicaConfig(
      workDir,
      name,
      replicaConfig({ port, pg, sink, broker, exchange }),
    );
    replicas.push(new Replica({ name, configFile, httpPort: port, logDir: workDir }));
  }
  cleanups.push(async () => {
    for (const r of replicas) await r.signal('SIGKILL');
  });
  migrate(replicas[0].configFile);
  await Promise.all(replicas.map((r) => r.start()));
  event('three replicas ready');
  return { database, sql, collector, broker, ledgers, sinkCounts, replicas };
}
