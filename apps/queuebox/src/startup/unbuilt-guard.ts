import { ConfigError } from '@queuebox/config';
import type { AppConfig } from '@queuebox/core';
import {
  brokerRegistered,
  captureRegistered,
  providers,
  type ProviderEntry,
  type ProviderRegistry,
} from '../providers.js';

/**
 * Settings the configuration accepts (they are the reference's keys) but this build cannot act
 * on yet: a broker source, database or capture mode whose provider the registry lacks.
 * Each one stops the start with a line naming the key, instead of a start that silently never
 * consumes the queue or never captures. Broker destinations are refused the same way by the
 * routing check ("no publisher supports destination ..."). Settings that only matter once one
 * of these is on (`outbox.capture.slot`, a source's `queueName`) need no line of their own.
 */
export function unbuiltFeatureProblems(
  config: AppConfig,
  registry: ProviderRegistry = providers,
): string[] {
  const problems: string[] = [];
  // PostgreSQL is the build's own database; another type needs its provider in the registry.
  if (
    config.database.type !== 'postgresql' &&
    registry[config.database.type]?.kind !== 'database'
  ) {
    problems.push(
      `database.type: ${config.database.type} databases are not available in this build of QueueBox; use postgresql`,
    );
  }
  const capture = config.outbox.capture;
  if (capture.enabled && !captureRegistered(capture.mode, registry)) {
    // A mode ships in its database's package (the full registry's line says which): a build
    // without that package is told so, while a registry that has the package but not the mode's
    // line gets the plain text.
    const entry: ProviderEntry | undefined = (providers as ProviderRegistry)[capture.mode];
    const home = entry?.home;
    const comesWith =
      entry !== undefined && home !== undefined && registry[home.database]?.kind !== 'database'
        ? `comes with the ${home.label} package (${entry.packageName}), which this build of QueueBox does not have`
        : 'is not available in this build of QueueBox';
    problems.push(
      `outbox.capture.mode: capture mode ${capture.mode} ${comesWith}; set outbox.capture.enabled to false ` +
        'and outbox.capture.mode to polling, and the outbox is delivered by polling every outbox.pollIntervalMs',
    );
  }
  for (const [name, source] of Object.entries(config.sources)) {
    if (source.type !== 'http' && !brokerRegistered(source.type, registry)) {
      problems.push(
        `sources.${name}: type ${source.type} sources are not available in this build of QueueBox; use an http source`,
      );
    }
  }
  return problems;
}

/** Throws one configuration error, in the format of the loader's, listing every problem. */
export function refuseUnbuiltFeatures(
  config: AppConfig,
  registry: ProviderRegistry = providers,
): void {
  const problems = unbuiltFeatureProblems(config, registry);
  if (problems.length > 0) throw ConfigError.fromProblems(problems);
}
