import { QueueBoxError, toError, type DatabaseProvider } from '@queuebox/core';

/**
 * The provider registry (architecture §4): every database, broker and capture provider is one
 * dynamic import here, so a deployment carries only what it uses and the app names the missing
 * package instead of crashing on a bare module error. A dynamic import hides a missing package
 * from the compiler, which is why `checkProviders` runs in the build, in CI, and against the
 * production install the container image copies.
 */
interface ProviderEntry<T> {
  readonly packageName: string;
  readonly kind: string;
  load(): Promise<{ readonly provider: T }>;
}

export const providers = {
  postgresql: {
    packageName: '@queuebox/postgres',
    kind: 'database',
    load: () => import('@queuebox/postgres'),
  },
} satisfies Record<string, ProviderEntry<unknown>>;

export type ProviderName = keyof typeof providers;

/** Loads one provider and checks its shape; a missing package raises the named error. */
export async function loadProvider<N extends ProviderName>(
  name: N,
): Promise<Awaited<ReturnType<(typeof providers)[N]['load']>>['provider']> {
  const entry: ProviderEntry<{ kind?: unknown; name?: unknown }> = providers[name];
  let loaded: { readonly provider: { kind?: unknown; name?: unknown } } | undefined;
  try {
    loaded = await entry.load();
  } catch (error: unknown) {
    throw new QueueBoxError(
      'provider_missing',
      `The provider '${name}' is missing: add the package ${entry.packageName} to the QueueBox runtime install. Reason: ${toError(error).message}`,
      { cause: error },
    );
  }
  const provider = loaded?.provider;
  if (provider?.kind !== entry.kind || provider.name !== name) {
    throw new QueueBoxError(
      'provider_missing',
      `The provider '${name}' in ${entry.packageName} does not export the expected shape (a ${entry.kind} provider named '${name}'). Reinstall ${entry.packageName} at the version of the app.`,
    );
  }
  return provider as never;
}

export async function loadDatabaseProvider(
  type: 'postgresql' | 'sqlserver',
): Promise<DatabaseProvider> {
  if (!(type in providers)) {
    throw new QueueBoxError(
      'provider_missing',
      `The provider '${type}' is not part of this build of QueueBox. Use database.type postgresql.`,
    );
  }
  return loadProvider(type as ProviderName);
}

/** Loads every registered provider; returns one problem line per provider that failed. */
export async function checkProviders(): Promise<string[]> {
  const problems: string[] = [];
  for (const name of Object.keys(providers) as ProviderName[]) {
    try {
      await loadProvider(name);
    } catch (error: unknown) {
      problems.push(toError(error).message);
    }
  }
  return problems;
}
