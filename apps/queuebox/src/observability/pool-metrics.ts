import { Gauge, type Registry } from 'prom-client';
import type { DatabaseConfig } from '@queuebox/core';

/**
 * The connection-pool families dashboards of the reference read (HikariCP via Micrometer), as far
 * as postgres.js lets them be told truthfully: it has no pool introspection, so only the bounds
 * are emitted. The pool label is HikariCP's default pool name, so existing queries keep matching.
 * docs/metrics.md names what replaces the families that are not emitted.
 */
export const POOL_NAME = 'HikariPool-1';

export function registerPoolMetrics(registry: Registry, database: DatabaseConfig): void {
  new Gauge({
    name: 'hikaricp_connections_max',
    help: 'Max connections',
    labelNames: ['pool'],
    registers: [registry],
  })
    .labels({ pool: POOL_NAME })
    .set(database.poolSize);
  // postgres.js opens connections on demand and keeps no idle minimum.
  new Gauge({
    name: 'hikaricp_connections_min',
    help: 'Min idle connections',
    labelNames: ['pool'],
    registers: [registry],
  })
    .labels({ pool: POOL_NAME })
    .set(0);
}
