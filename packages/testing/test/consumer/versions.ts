/**
 * The one list of what the published-packages test installs beside our tarballs. For each
 * driver or query builder a user hands to @queuebox/postgres, /outbox or /inbox: the oldest and
 * the newest release of every major (for 0.x, of the whole 0.x line) that our peer ranges cover,
 * oldest first. The last entry of each list is "the newest"; the base install takes every
 * driver at its newest, and each other pinned version gets an install of its own with the
 * others at their newest (not the cross product).
 *
 * Update the newest versions here when a release lands (`pnpm check:latest` tells when), and
 * widen the peer ranges in packages/{postgres,outbox,inbox}/package.json with the list.
 */
export const DRIVERS = {
  postgres: ['3.4.9', '3.4.10', '4.0.0', '4.2.0'],
  pg: ['8.23.1'],
  knex: ['3.3.0'],
  'drizzle-orm': ['0.30.0', '0.45.4'],
  kysely: ['0.26.0', '0.29.9'],
  mssql: ['10.0.0', '10.0.5', '11.0.0', '11.0.2', '12.0.0', '12.7.16'],
} as const satisfies Record<string, readonly string[]>;

/** Type packages the TypeScript consumer needs, one version for every install. */
export const TYPES = {
  '@types/node': '20.19.43',
  '@types/pg': '8.23.1',
  '@types/mssql': '12.3.0',
} as const satisfies Record<string, string>;

export type Driver = keyof typeof DRIVERS;

export interface ConsumerInstall {
  /** "newest", "postgres@3.4.0", or "latest" for `pnpm check:latest`. */
  readonly label: string;
  /** The driver this install varies; null for the base install. */
  readonly varied: Driver | null;
  /** npm install specifiers (`name@version`), drivers and types. */
  readonly specs: readonly string[];
}

const newest = (driver: Driver): string => DRIVERS[driver].at(-1)!;
const names = Object.keys(DRIVERS) as Driver[];
const typeSpecs = Object.entries(TYPES).map(([name, version]) => `${name}@${version}`);

/** The base install, then one per pinned version that is not its driver's newest. */
export function pinnedInstalls(): ConsumerInstall[] {
  const specs = (driver: Driver | null, version?: string) => [
    ...names.map((name) => `${name}@${name === driver ? version : newest(name)}`),
    ...typeSpecs,
  ];
  return [
    { label: 'newest', varied: null, specs: specs(null) },
    ...names.flatMap((driver) =>
      DRIVERS[driver]
        .filter((version) => version !== newest(driver))
        .map((version) => ({
          label: `${driver}@${version}`,
          varied: driver,
          specs: specs(driver, version),
        })),
    ),
  ];
}

/** `pnpm check:latest`: every driver and type package at the registry's `latest` tag. */
export function latestInstall(): ConsumerInstall {
  return {
    label: 'latest',
    varied: null,
    specs: [
      ...names,
      ...Object.keys(TYPES).filter((name) => name !== '@types/node'),
      '@types/node@20',
    ].map((name) => (name.includes('@', 1) ? name : `${name}@latest`)),
  };
}
