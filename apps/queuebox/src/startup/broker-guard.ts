import { QueueBoxError, type AppConfig } from '@queuebox/core';

/**
 * Broker sources (RabbitMQ, Kafka, NATS consumers) are not part of this build yet. A
 * configuration that names one stops the start with a clear line instead of silently never
 * consuming the queue.
 */
export function refuseUnbuiltSources(config: AppConfig): void {
  const problems = Object.entries(config.sources)
    .filter(([, source]) => source.type !== 'http')
    .map(
      ([name, source]) =>
        `sources.${name}: type ${source.type} sources are not available in this build of QueueBox; use an http source`,
    );
  if (problems.length > 0) throw new QueueBoxError('config_invalid', problems.join('\n'));
}
