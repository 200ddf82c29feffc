import { Counter, Gauge, type Registry } from './prom.js';
import type { DatabaseConfig, PoolObserver } from '@queuebox/core';
import { createMicrometerTimer } from './summary-timer.js';

/**
 * The connection-pool families dashboards of the reference read (HikariCP via Micrometer), as far
 * as they can be told truthfully. The dialects' pools keep no statistics, so the bounds come from
 * the configuration, and pending, acquire time and timeouts are measured in QueueBox's own
 * borrowing (the returned observer, which the database provider calls around every connection it
 * reserves: the outbox claims and completions and the relay claims). The pool label is
 * HikariCP's default pool name, so existing queries and alerts keep matching. docs/metrics.md
 * names what replaces the families that are not emitted.
 */
export const POOL_NAME = 'HikariPool-1';

export function registerPoolMetrics(registry: Registry, database: DatabaseConfig): PoolObserver {
  const pool = { pool: POOL_NAME };
  new Gauge({
    name: 'hikaricp_connections_max',
    help: 'Max connections',
    labelNames: ['pool'],
    registers: [registry],
  })
    .labels(pool)
    .set(database.poolSize);
  // The dialects' pools open connections on demand and keep no idle minimum.
  new Gauge({
    name: 'hikaricp_connections_min',
    help: 'Min idle connections',
    labelNames: ['pool'],
    registers: [registry],
  })
    .labels(pool)
    .set(0);
  // HikariCP registers these with the pool, so they show 0 before the first wait.
  const pending = new Gauge({
    name: 'hikaricp_connections_pending',
    help: 'Pending threads',
    labelNames: ['pool'],
    registers: [registry],
  }).labels(pool);
  pending.set(0);
  const timeouts = new Counter({
    name: 'hikaricp_connections_timeout_total',
    help: 'Connection timeout total count',
    labelNames: ['pool'],
    registers: [registry],
  }).labels(pool);
  timeouts.inc(0);
  const acquire = createMicrometerTimer<'pool'>(registry, {
    name: 'hikaricp_connections_acquire_seconds',
    help: 'Connection acquire time',
    labelNames: ['pool'],
  });
  return {
    borrow() {
      pending.inc();
      const started = performance.now();
      let ended = false;
      return (outcome) => {
        if (ended) return;
        ended = true;
        pending.dec();
        if (outcome === 'timeout') timeouts.inc();
        else acquire.observe((performance.now() - started) / 1000, pool);
      };
    },
  };
}
