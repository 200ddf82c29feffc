import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from '@queuebox/core';

/**
 * The faults of postgres.js 3 (every 3.x release up to 3.4.10) that QueueBox's workspace patched
 * (patches/postgres@3.4.9.patch) until it moved to postgres.js 4, which has none of them. An npm
 * install of the published package gets no pnpm patch, so the driver it is given is checked
 * here, by the faulty lines themselves: a 3.x that someone patched, or a fixed 3.x release,
 * passes. docs/decisions.md ("postgres.js 4") says what each one breaks.
 */
export interface DriverFault {
  readonly id:
    'stale-write-timer' | 'statement-after-error' | 'type-fetch-rejection' | 'queue-scan';
  readonly effect: string;
}

const FAULTS: readonly (DriverFault & { readonly file: string; readonly line: RegExp })[] = [
  {
    id: 'stale-write-timer',
    effect:
      'a connection reset while it had unsent bytes never sends its reconnect (CONNECT_TIMEOUT until restart)',
    file: 'connection.js',
    line: /clearImmediate\(nextWriteTimer\)\s*\n\s*socket\.removeListener\('data'/,
  },
  {
    id: 'statement-after-error',
    effect: "a statement handed to a connection between its socket's error and close never settles",
    file: 'connection.js',
    line: /!hadError && \(query \|\| sent\.length\) && error\(/,
  },
  {
    id: 'type-fetch-rejection',
    effect:
      'a connection cut while it fetches the array types is an unhandled rejection, which ends the process',
    file: 'connection.js',
    line: /return fetchArrayTypes\(\)\s*\n/,
  },
  {
    id: 'queue-scan',
    effect:
      'reserve() and release() grow slower without bound on a pool that always has an idle connection',
    file: 'queue.js',
    line: /const index = xs\.indexOf\(x\)\s*\n/,
  },
];

/** The faults found in postgres.js sources (`src/`, the ES module build QueueBox imports). */
export function faultsInSources(read: (file: string) => string | undefined): DriverFault[] {
  return FAULTS.filter(({ file, line }) => line.test(read(file) ?? '')).map(({ id, effect }) => ({
    id,
    effect,
  }));
}

export interface InstalledDriver {
  readonly version: string;
  readonly faults: readonly DriverFault[];
}

/** The postgres.js that `import '<specifier>'` loads from this package. */
export function checkInstalledDriver(specifier = 'postgres'): InstalledDriver {
  const entry = createRequire(import.meta.url).resolve(specifier);
  let root = dirname(entry);
  for (;;) {
    const manifest = tryRead(join(root, 'package.json'));
    if (manifest !== undefined && (JSON.parse(manifest) as { name?: string }).name === 'postgres')
      break;
    const parent = dirname(root);
    if (parent === root) return { version: 'unknown', faults: [] };
    root = parent;
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { version, faults: faultsInSources((file) => tryRead(join(root, 'src', file))) };
}

function tryRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

let warned = false;

/**
 * Warns once per process when the installed postgres.js has any of the faults, with what each
 * does and the fix. QueueBox still runs: its statements on the pool are bounded (an inbox store
 * statement fails after twice the connection timeout, a pipelined transaction after its
 * reserve and answer bounds), so the second fault costs a bounded wait, not a stuck message;
 * the others are the driver's to fix.
 */
export function warnAboutDriverFaults(logger: Logger, installed = checkInstalledDriver()): void {
  if (warned || installed.faults.length === 0) return;
  warned = true;
  logger.warn(
    `postgres.js ${installed.version} has ${installed.faults.length} known fault(s) that ` +
      `postgres.js 4.2 does not: ${installed.faults.map((f) => f.effect).join('; ')}. ` +
      'Install postgres@^4.2.0 (npm install postgres@4), or apply the fixes of ' +
      'docs/upstream/postgres-js-3.md to your postgres.js 3.',
  );
}
