import { ConfigError, explainConfig } from '@queuebox/config';
import {
  sanitize,
  silentLogger,
  toError,
  type AppConfig,
  type BrokerProvider,
  type DeliveryHandler,
  type SourceConfig,
} from '@queuebox/core';
import {
  createJsonataTransformer,
  checkPrivateAddresses,
  validateRouting,
} from '@queuebox/outbox-service';
import { Registry } from '../observability/prom.js';
import { adminAuthenticator } from '../admin/admin-request.js';
import { buildHttpApps } from '../http/apps.js';
import { RequestDrain } from '../http/drain.js';
import { loggerOptionsFromEnv } from '../observability/logger.js';
import { registerMetricFamilies } from '../observability/metric-families.js';
import {
  brokerConfigs,
  brokerRegistered,
  captureRegistered,
  loadBrokerProvider,
  loadCaptureProvider,
  loadDatabaseProvider,
  providers,
  type ProviderRegistry,
} from '../providers.js';
import { readDemoConfig } from './demo-config.js';
import { dataRoutes } from './http-routes.js';
import { registeredBrokers, routingOptions } from './outbox-assembly.js';
import { buildSourceConsumers } from './source-consumers.js';
import { unconnectedDatabase } from './unconnected-database.js';
import { unbuiltFeatureProblems } from './unbuilt-guard.js';

export interface OfflineCheck {
  /** Null when the configuration did not load (the loader's problems are then the list). */
  readonly config: AppConfig | null;
  /** The YAML source read (a path or DEMO_SOURCE_NAME), null when only variables configure or nothing loaded. */
  readonly fileName: string | null;
  /** Every problem the start would stop on before it touches the database; empty when none. */
  readonly problems: readonly string[];
}

/**
 * `queuebox config check`: every check of the start that needs no database and no broker, run
 * by the same functions the start runs (spec §17.1 steps 1-4 and the route and source builds of
 * step 8), each collected instead of stopping at the first, so one run lists everything.
 *
 * Nothing here connects: the database provider is loaded (a module import) only to ask its
 * offline `check`, the HTTP routes are built on a database that refuses every use, and the
 * capture source and broker source consumers are built but never started. The DNS check of `http.blockPrivateAddresses`
 * does resolve names, as the start does.
 */
export async function checkOffline(
  env: Readonly<Record<string, string | undefined>>,
  registry: ProviderRegistry = providers,
): Promise<OfflineCheck> {
  const problems: string[] = [];
  const collect = async (run: () => unknown): Promise<void> => {
    try {
      await run();
    } catch (error: unknown) {
      problems.push(...problemLines(error));
    }
  };

  await collect(() => loggerOptionsFromEnv(env));
  let config: AppConfig | null = null;
  let fileName: string | null = null;
  await collect(() => {
    ({ config, fileName } = explainConfig({
      env,
      demoConfigYaml: readDemoConfig(),
      brokers: brokerConfigs,
    }));
  });
  if (config === null) return { config, fileName: null, problems };
  const loaded: AppConfig = config;

  problems.push(...unbuiltFeatureProblems(loaded, registry));
  if (registry[loaded.database.type]?.kind === 'database') {
    await collect(async () => {
      const provider = await loadDatabaseProvider(loaded.database.type, registry);
      problems.push(...(provider.check?.(loaded) ?? []));
    });
  }
  const capture = loaded.outbox.capture;
  if (capture.enabled && captureRegistered(capture.mode, registry)) {
    // The capture source is built as the start builds it; it connects only when started.
    await collect(async () => {
      const provider = await loadCaptureProvider(capture.mode, registry);
      provider.createCaptureSource(loaded, { logger: silentLogger });
    });
  }
  const transformer = createJsonataTransformer();
  // A broker package that fails to load is its own problem; the routing check still runs, with
  // the address rules of the brokers that loaded and every registered type as a publisher.
  const registered = registeredBrokers(loaded, registry);
  const brokers: BrokerProvider[] = [];
  for (const type of registered)
    await collect(async () => brokers.push(await loadBrokerProvider(type, registry)));
  await collect(() =>
    validateRouting(loaded, transformer, {
      ...routingOptions(brokers),
      publisherTypes: ['http', ...registered],
    }),
  );
  await collect(() => checkPrivateAddresses(loaded));
  await collect(() =>
    buildHttpApps({
      managementPort: loaded.server.managementPort,
      maxBodyBytes: loaded.inbox.maxBodyBytes,
      registry: new Registry(),
      health: [],
      drain: new RequestDrain(),
      dataRoutes: dataRoutes(
        loaded,
        unconnectedDatabase(),
        transformer,
        registerMetricFamilies(new Registry()).inbox,
        silentLogger,
      ),
    }),
  );
  if (loaded.admin.enabled) await collect(() => adminAuthenticator(loaded.admin));
  await collect(async () => {
    // Kinds without a provider are already reported by the unbuilt-feature guard.
    const sources = Object.fromEntries(
      Object.entries(loaded.sources).filter(
        ([, source]: [string, SourceConfig]) =>
          source.type !== 'http' && brokerRegistered(source.type, registry),
      ),
    );
    const consumers = await buildSourceConsumers(
      { sources },
      { handlerFor: () => NEVER_CONSUMED, logger: silentLogger },
      registry,
    );
    await Promise.allSettled(consumers.map((consumer) => consumer.close()));
  });
  return { config: loaded, fileName, problems };
}

/** The check builds consumers to validate them and closes them unstarted: nothing is delivered. */
const NEVER_CONSUMED: DeliveryHandler = {
  handle: () => Promise.reject(new Error('config check consumes no message')),
};

/**
 * One line per problem: the loader's and the routing check's lists, or the error's own text. A
 * ConfigError without problems ("No configuration was found...") is its message.
 */
function problemLines(error: unknown): string[] {
  if (error instanceof ConfigError)
    return error.problems.length > 0 ? [...error.problems] : [error.message];
  const listed = (error as { problems?: unknown }).problems;
  if (Array.isArray(listed) && listed.length > 0 && listed.every((l) => typeof l === 'string'))
    return listed;
  const text = sanitize(toError(error).message);
  // "2 HTTP destinations point at private addresses:\n  - ...\n  - ...": one line each.
  const items = text
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .map((line) => line.slice(4));
  return items.length > 0 ? items : [text];
}
