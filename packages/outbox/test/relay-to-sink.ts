import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import {
  createFreshDatabase,
  freePort,
  startHttpSink,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import { startQueueBox, type QueueBoxProcess } from './queuebox-process.js';

/** A migrated database, a real HTTP sink, and the built QueueBox relaying outbox rows to it. */
export interface RelayToSink {
  readonly db: FreshDatabase;
  readonly sink: HttpSink;
  readonly queuebox: QueueBoxProcess;
  /** Stops QueueBox, then closes the sink and drops the database. */
  close(): Promise<void>;
}

/**
 * The configuration for outbox delivery only: rows whose topic matches `topicPattern` go to the
 * sink's `/events`, polled every 50 ms. Written as JSON, which a YAML reader takes as it is.
 */
export function relayToSinkConfig(sinkUrl: string, topicPattern: string): string {
  const config = {
    database: { migrate: false },
    outbox: { pollIntervalMs: 50 },
    inbox: { relay: { enabled: false } },
    destinations: { sink: { type: 'http', baseUrl: sinkUrl, path: '/events' } },
    routes: [{ topicPattern, destination: 'sink' }],
  };
  return JSON.stringify(config, null, 2);
}

/** Starts the three on a fresh database of the PostgreSQL at `pgUrl`. */
export async function startRelayToSink(pgUrl: string, topicPattern: string): Promise<RelayToSink> {
  const db = await createFreshDatabase(pgUrl);
  await runMigrations(db.sql, { logger: silentLogger });
  const sink = await startHttpSink();
  const queuebox = startQueueBox(db, relayToSinkConfig(sink.url, topicPattern), await freePort());
  return {
    db,
    sink,
    queuebox,
    async close() {
      await queuebox.stop();
      await sink.close();
      await db.drop();
    },
  };
}
