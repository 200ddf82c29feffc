import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFreshDatabase,
  examplesOf,
  requireService,
  runExampleFile,
  type DocExample,
} from '../src/index.js';
import {
  examplesFor,
  inPool,
  installBase,
  installVariant,
  packReleased,
  RELEASED,
  type InstallOutcome,
} from './consumer/consumer-kit.js';
import { PREPARE } from './consumer/consumer-sources.js';
import { DRIVERS, latestInstall, pinnedInstalls } from './consumer/versions.js';

const pg = await requireService('postgres', 'published packages: README and docs examples');

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** `pnpm check:latest` sets it: one install of the registry's newest instead of the pinned set. */
const LATEST = process.env.QUEUEBOX_CONSUMER_LATEST === '1';
const installs = LATEST ? [latestInstall()] : pinnedInstalls();
/** Variant installs and type checks at once: npm waits on the disk, tsc on the CPU. */
const PARALLEL = 3;

const examples: DocExample[] = [
  ...RELEASED.flatMap((name) =>
    examplesOf(join(ROOT, 'packages', name, 'README.md'), `@queuebox/${name} README`),
  ),
  ...examplesOf(join(ROOT, 'docs/outbox-client.md'), 'docs/outbox-client.md'),
  ...examplesOf(join(ROOT, 'docs/pull.md'), 'docs/pull.md'),
  // SQL Server examples run in the SQL Server suite of the package they show (wherever a SQL
  // Server answers): this run has a PostgreSQL only.
].filter((example) => !example.sqlserver);

/**
 * The packages as a user gets them: each release-ready package packed by `pnpm pack`, the
 * tarballs installed with npm in fresh directories outside the workspace beside the drivers of
 * ./consumer/versions.ts (the newest of each, then each other pinned version on its own), every
 * README and docs example that uses the varied driver run there with plain Node against the real
 * PostgreSQL, and a TypeScript consumer type-checked with `moduleResolution: nodenext`.
 */
describe.skipIf(!pg.available)('the published packages', () => {
  let parent: string;
  const outcomes = new Map<string, InstallOutcome>();

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'queuebox-consumer-'));
    const tarballs = packReleased(ROOT, parent);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const started = performance.now();
    const options = { tsc, online: LATEST };
    const [first, ...rest] = installs;
    const base = await installBase(parent, tarballs, first!, options);
    const done = [
      base,
      ...(await inPool(rest, PARALLEL, (install) =>
        installVariant(parent, base, install, options),
      )),
    ];
    for (const outcome of done) outcomes.set(outcome.install.label, outcome);
    if (base.installError === null) {
      const version = (name: string) =>
        (
          JSON.parse(
            readFileSync(join(base.dir, 'node_modules', name, 'package.json'), 'utf8'),
          ) as { version: string }
        ).version;
      console.log(
        `${base.install.label}: ${Object.keys(DRIVERS)
          .map((name) => `${name} ${version(name)}`)
          .join(', ')}`,
      );
    }
    const total = ((performance.now() - started) / 1000).toFixed(0);
    console.log(
      `${done.length} consumer install(s) and type checks in ${total} s: ` +
        done.map((o) => `${o.install.label} ${o.seconds.toFixed(0)} s`).join(', '),
    );
  }, 2_400_000);

  // Fifteen node_modules trees: removed without blocking, with time for a loaded machine.
  afterAll(async () => {
    if (parent !== undefined) await rm(parent, { recursive: true, force: true });
  }, 600_000);

  /** The install's directory, or its npm failure as the test's failure. */
  const installed = (label: string): InstallOutcome => {
    const outcome = outcomes.get(label);
    if (outcome === undefined) throw new Error(`${label}: not installed`);
    if (outcome.installError !== null)
      throw new Error(`npm install failed:\n${outcome.installError}`);
    return outcome;
  };

  it('installs each package with its README, LICENSE and types, no TypeScript sources, and no driver of its own', () => {
    const { dir } = installed(installs[0]!.label);
    for (const name of RELEASED) {
      const installedDir = join(dir, 'node_modules', '@queuebox', name);
      const manifest = JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8')) as {
        license: string;
        private?: boolean;
        exports: Record<string, Record<string, string>>;
        dependencies?: Record<string, string>;
      };
      expect(manifest.license).toBe('Apache-2.0');
      expect(manifest.private).toBeUndefined();
      // Every entry point of the workspace manifest, without the workspace's source condition.
      const workspace = JSON.parse(
        readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'),
      ) as { exports: Record<string, Record<string, string>> };
      expect(Object.keys(manifest.exports)).toEqual(Object.keys(workspace.exports));
      for (const [path, conditions] of Object.entries(manifest.exports)) {
        const { ['@queuebox/source']: _source, ...published } = workspace.exports[path]!;
        expect(conditions).toEqual(published);
        expect(existsSync(join(installedDir, conditions.default!))).toBe(true);
      }
      for (const range of Object.values(manifest.dependencies ?? {})) {
        expect(range).not.toMatch(/^workspace:/);
      }
      // The user's driver is a peer: one copy, the user's, so its `sql` fits our parameters.
      for (const driver of Object.keys(DRIVERS)) {
        expect(manifest.dependencies?.[driver], `${name} depends on ${driver}`).toBeUndefined();
        expect(existsSync(join(installedDir, 'node_modules', driver))).toBe(false);
      }
      expect(readFileSync(join(installedDir, 'LICENSE'), 'utf8')).toBe(
        readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
      );
      expect(existsSync(join(installedDir, 'README.md'))).toBe(true);
      expect(existsSync(join(installedDir, 'dist', 'index.d.ts'))).toBe(true);
      expect(existsSync(join(installedDir, 'src'))).toBe(false);
    }
  });

  describe.each(installs.map((install) => [install.label, install] as const))(
    'beside %s',
    (label, install) => {
      it('installs the drivers at the pinned versions', () => {
        const { dir } = installed(label);
        for (const spec of install.specs) {
          const at = spec.lastIndexOf('@');
          const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
          const manifest = JSON.parse(
            readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'),
          ) as { version: string };
          if (/^\d+\.\d+\.\d+$/.test(version)) expect(manifest.version, name).toBe(version);
        }
      });

      it('type-checks a TypeScript consumer with moduleResolution nodenext', () => {
        expect(installed(label).typeErrors).toBe('');
      });

      const own = examplesFor(install, examples);
      it.each(own.map((example) => [`${example.page} #${example.index + 1}`, example] as const))(
        'runs %s with plain Node',
        async (_name, example) => {
          const { dir } = installed(label);
          const db = await createFreshDatabase(pg.available ? pg.url : '');
          try {
            if (!example.empty) await prepare(dir, db.url);
            const file = join(dir, `example-${Date.now()}-${example.index}.mjs`);
            writeFileSync(file, example.code);
            const result = await runExample(file, db.url, example);
            expect(result.code, result.output).toBe(0);
            expect(result.output).toMatch(example.expect);
          } finally {
            await db.drop();
          }
        },
        60_000,
      );
    },
  );
});

/** QueueBox's tables (through the installed @queuebox/postgres), the examples' own tables, and pull rows. */
async function prepare(dir: string, url: string): Promise<void> {
  const file = join(dir, 'prepare.mjs');
  writeFileSync(file, PREPARE);
  const result = await runExample(file, url, { stop: false, expect: /prepared/ });
  if (result.code !== 0) throw new Error(`prepare failed:\n${result.output}`);
}

function runExample(
  file: string,
  url: string,
  example: Pick<DocExample, 'stop' | 'expect'>,
): Promise<{ code: number | null; output: string }> {
  // The repository root as working directory: docs/pull.md reads the shipped SQL files.
  return runExampleFile(file, example, { cwd: ROOT, env: { DATABASE_URL: url } });
}
