import { QueueBoxError, type AppConfig } from '@queuebox/core';
import { brokerRegistered, providers, type ProviderRegistry } from '../providers.js';

/**
 * A source of a broker kind that this build has no provider for (provider registry) stops the
 * start with a clear line instead of silently never consuming the queue.
 */
export function refuseUnbuiltSources(
  config: AppConfig,
  registry: ProviderRegistry = providers,
): void {
  const problems = Object.entries(config.sources)
    .filter(([, source]) => source.type !== 'http' && !brokerRegistered(source.type, registry))
    .map(
      ([name, source]) =>
        `sources.${name}: type ${source.type} sources are not available in this build of QueueBox; use an http source`,
    );
  if (problems.length > 0) throw new QueueBoxError('config_invalid', problems.join('\n'));
}
