import {
  QueueBoxError,
  toError,
  type BrokerDescriptor,
  type BrokerProvider,
  type BrokerType,
  type CaptureMode,
  type CaptureProvider,
  type DatabaseProvider,
  type DatabaseType,
} from '@queuebox/core';

/**
 * The provider registry (architecture §4): every database, broker and capture provider is one
 * dynamic import here, so a deployment carries only what it uses and the app names the missing
 * package instead of crashing on a bare module error. A dynamic import hides a missing package
 * from the compiler, which is why `checkProviders` runs in the build, in CI, and against the
 * production install the container image copies.
 *
 * A broker package joins with one line, `rabbitmq: broker('@queuebox/rabbitmq', () =>
 * import('@queuebox/rabbitmq')),` (and its entry in package.json): its destinations get its
 * publisher and its sources its consumer. A broker kind without a line here stops the start.
 * The line also names its descriptor (`@queuebox/<broker>/descriptor`, no client library), which
 * gives the configuration its destination and source keys (`brokerConfigs`).
 * A capture mode is a line named after `outbox.capture.mode`, from the database package that
 * owns its change feed, and names that database's line (`sqlserver-cdc` comes with the SQL Server
 * package), so that a build without the package says which one the mode needs.
 */
export const providers = {
  postgresql: database('@queuebox/postgres', () => import('@queuebox/postgres')),
  'postgres-logical': capture('@queuebox/postgres', () => import('@queuebox/postgres/capture'), {
    database: 'postgresql',
    label: 'PostgreSQL',
  }),
  sqlserver: database('@queuebox/sqlserver', () => import('@queuebox/sqlserver')),
  'sqlserver-cdc': capture('@queuebox/sqlserver', () => import('@queuebox/sqlserver/capture'), {
    database: 'sqlserver',
    label: 'SQL Server',
  }),
  rabbitmq: broker(
    '@queuebox/rabbitmq',
    () => import('@queuebox/rabbitmq'),
    () => import('@queuebox/rabbitmq/descriptor'),
  ),
  nats: broker(
    '@queuebox/nats',
    () => import('@queuebox/nats'),
    () => import('@queuebox/nats/descriptor'),
  ),
  kafka: broker(
    '@queuebox/kafka',
    () => import('@queuebox/kafka'),
    () => import('@queuebox/kafka/descriptor'),
  ),
} satisfies ProviderRegistry;

export type ProviderName = keyof typeof providers;

export type ProviderKind = 'database' | 'broker' | 'capture';

export interface DatabaseProviderModule {
  readonly provider: DatabaseProvider;
}

export interface BrokerProviderModule {
  readonly provider: BrokerProvider;
}

export interface CaptureProviderModule {
  readonly provider: CaptureProvider;
}

export interface BrokerDescriptorModule {
  readonly descriptor: BrokerDescriptor;
}

/** The database a capture mode comes with: its package carries the mode. */
export interface CaptureHome {
  /** The database's line in the registry. */
  readonly database: DatabaseType;
  /** How the texts name the database. */
  readonly label: string;
}

export interface ProviderEntry<M = unknown> {
  readonly packageName: string;
  readonly kind: ProviderKind;
  load(): Promise<M>;
  /** A broker's descriptor module, which loads without its client library. */
  loadDescriptor?(): Promise<BrokerDescriptorModule>;
  /** A capture mode's database. */
  readonly home?: CaptureHome;
}

export type ProviderRegistry = Readonly<Record<string, ProviderEntry>>;

export function database(
  packageName: string,
  load: () => Promise<DatabaseProviderModule>,
): ProviderEntry<DatabaseProviderModule> {
  return { packageName, kind: 'database', load };
}

/**
 * A broker package's provider is typed for its own kind (`BrokerProvider<'rabbitmq'>` takes only
 * RabbitMQ sources), which is not assignable to a provider of every kind. The registry entry is
 * keyed by that kind and the app hands it only sources of that type (`buildSourceConsumers`).
 */
export function broker<T extends BrokerType>(
  packageName: string,
  load: () => Promise<{ readonly provider: BrokerProvider<T> }>,
  loadDescriptor?: () => Promise<{ readonly descriptor: BrokerDescriptor<T> }>,
): ProviderEntry<BrokerProviderModule> {
  return {
    packageName,
    kind: 'broker',
    load: load as unknown as () => Promise<BrokerProviderModule>,
    ...(loadDescriptor === undefined ? {} : { loadDescriptor }),
  };
}

export function capture(
  packageName: string,
  load: () => Promise<CaptureProviderModule>,
  home: CaptureHome,
): ProviderEntry<CaptureProviderModule> {
  return { packageName, kind: 'capture', load, home };
}

/** The functions each kind's provider must export beside `kind` and `name`. */
const FACTORIES: Record<ProviderKind, readonly string[]> = {
  database: ['open'],
  broker: ['createPublisher', 'createSourceConsumer'],
  capture: ['createCaptureSource'],
};

/** Loads one provider and checks its shape; a missing package raises the named error. */
export async function loadProvider(
  name: string,
  registry: ProviderRegistry = providers,
): Promise<unknown> {
  const entry = registry[name];
  if (entry === undefined) {
    throw new QueueBoxError('provider_missing', `No provider '${name}' is registered.`);
  }
  let loaded: unknown;
  try {
    loaded = await entry.load();
  } catch (error: unknown) {
    throw new QueueBoxError(
      'provider_missing',
      `The provider '${name}' is missing: add the package ${entry.packageName} to the QueueBox runtime install. Reason: ${toError(error).message}`,
      { cause: error },
    );
  }
  const provider = (loaded as { provider?: Record<string, unknown> } | undefined)?.provider;
  const missing = FACTORIES[entry.kind].filter((key) => typeof provider?.[key] !== 'function');
  // A broker also says where it starts, stops and reads its address (`BrokerDescriptor`).
  const described =
    entry.kind !== 'broker' ||
    (provider?.descriptor as { name?: unknown } | undefined)?.name === name;
  if (provider?.kind !== entry.kind || provider.name !== name || missing.length > 0 || !described) {
    throw new QueueBoxError(
      'provider_missing',
      `The provider '${name}' in ${entry.packageName} does not export the expected shape (a ${entry.kind} provider named '${name}' with ${FACTORIES[entry.kind].join(' and ')}). Reinstall ${entry.packageName} at the version of the app.`,
    );
  }
  return provider;
}

export async function loadDatabaseProvider(
  type: DatabaseType,
  registry: ProviderRegistry = providers,
): Promise<DatabaseProvider> {
  if (registry[type]?.kind !== 'database') {
    throw new QueueBoxError(
      'provider_missing',
      `The provider '${type}' is not part of this build of QueueBox. Use database.type postgresql.`,
    );
  }
  return (await loadProvider(type, registry)) as DatabaseProvider;
}

/** Whether this build has a provider for the broker kind. */
export function brokerRegistered(
  type: BrokerType,
  registry: ProviderRegistry = providers,
): boolean {
  return registry[type]?.kind === 'broker';
}

/** A registered broker's provider; callers check `brokerRegistered` first. */
export async function loadBrokerProvider(
  type: BrokerType,
  registry: ProviderRegistry = providers,
): Promise<BrokerProvider> {
  if (!brokerRegistered(type, registry)) {
    throw new QueueBoxError(
      'provider_missing',
      `The broker '${type}' is not part of this build of QueueBox.`,
    );
  }
  return (await loadProvider(type, registry)) as BrokerProvider;
}

/** Whether this build has a provider for the capture mode. */
export function captureRegistered(
  mode: CaptureMode,
  registry: ProviderRegistry = providers,
): boolean {
  return registry[mode]?.kind === 'capture';
}

/** A registered capture mode's provider; callers check `captureRegistered` first. */
export async function loadCaptureProvider(
  mode: CaptureMode,
  registry: ProviderRegistry = providers,
): Promise<CaptureProvider> {
  if (!captureRegistered(mode, registry)) {
    throw new QueueBoxError(
      'provider_missing',
      `The capture mode '${mode}' is not part of this build of QueueBox.`,
    );
  }
  return (await loadProvider(mode, registry)) as CaptureProvider;
}

/** Loads every registered provider; returns one problem line per provider that failed. */
export async function checkProviders(registry: ProviderRegistry = providers): Promise<string[]> {
  const problems: string[] = [];
  for (const name of Object.keys(registry)) {
    try {
      await loadProvider(name, registry);
    } catch (error: unknown) {
      problems.push(toError(error).message);
    }
  }
  return problems;
}

/**
 * The registered brokers' descriptors, whose configuration blocks every `loadConfig` takes. A
 * broker whose package is missing contributes none (its `type` is then unknown to the
 * configuration), and `checkProviders` names the package.
 */
export async function loadBrokerConfigs(
  registry: ProviderRegistry = providers,
): Promise<BrokerDescriptor[]> {
  const loaded = await Promise.all(
    Object.values(registry).map(async (entry) => {
      if (entry.kind !== 'broker' || entry.loadDescriptor === undefined) return undefined;
      try {
        return (await entry.loadDescriptor()).descriptor;
      } catch {
        return undefined;
      }
    }),
  );
  return loaded.filter((descriptor) => descriptor !== undefined);
}

/**
 * The registry's broker descriptors, loaded once when the app starts: the configuration is read
 * (synchronously) before any provider loads.
 */
export const brokerConfigs: readonly BrokerDescriptor[] = await loadBrokerConfigs();
