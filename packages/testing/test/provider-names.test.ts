import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The packages that name no broker and no dialect (docs/architecture.md, "What stays central"). */
const CENTRAL = [
  'packages/core/src',
  'packages/config/src',
  'packages/outbox-service/src',
  'packages/inbox-service/src',
  'apps/queuebox/src',
];

/** A broker or dialect named as a value, the way a switch or a union names it. */
const PROVIDER_NAME = /'(?:rabbitmq|kafka|nats|sqlserver|postgresql)'/;

/**
 * The files that may still name one, each with the reason docs/architecture.md gives. A file that
 * starts to name a broker or a dialect fails here, so a new one goes to its provider instead.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  'apps/queuebox/src/providers.ts': 'the registry: one line per provider',
  'apps/queuebox/src/cli/dev.ts': '`queuebox dev` runs the embedded PostgreSQL',
  'apps/queuebox/src/startup/unbuilt-guard.ts': 'PostgreSQL is the database every build has',
  'packages/core/src/config/app-config.ts': 'the AppConfig types, still central',
  'packages/config/src/assemble.ts': 'the database block, still central',
  'packages/config/src/database-url.ts': 'the database block, still central',
  'packages/config/src/rules/index.ts': 'the database block, still central',
  'packages/config/src/schema/config.ts': 'PostgreSQL is the default database.type',
};

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .filter((entry) => !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('provider names in the central packages', () => {
  const naming = CENTRAL.flatMap(sources).filter((file) =>
    PROVIDER_NAME.test(readFileSync(join(ROOT, file), 'utf8')),
  );

  it('appear only in the registry and in what docs/architecture.md names as central', () => {
    expect(naming.filter((file) => !Object.hasOwn(ALLOWED, file))).toEqual([]);
  });

  it('are no longer allowed where they are gone', () => {
    expect(Object.keys(ALLOWED).filter((file) => !naming.includes(file))).toEqual([]);
  });
});
