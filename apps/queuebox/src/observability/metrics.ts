import { Gauge, Registry } from './prom.js';

/**
 * The one metrics registry of the process. No default Node/process families are registered:
 * the reference exposes none, and its dashboards and the metrics doc list only these families.
 */
export function createMetricsRegistry(version: string, startedAt: number): Registry {
  const registry = new Registry();
  // Micrometer exposed the registered `queuebox_info` gauge as `queuebox`; dashboards use that.
  new Gauge({
    name: 'queuebox',
    help: 'QueueBox build information',
    labelNames: ['version'],
    registers: [registry],
  })
    .labels({ version })
    .set(1);
  new Gauge({
    name: 'queuebox_uptime_seconds',
    help: 'Seconds since the QueueBox process started',
    registers: [registry],
    collect() {
      this.set((Date.now() - startedAt) / 1000);
    },
  });
  return registry;
}
