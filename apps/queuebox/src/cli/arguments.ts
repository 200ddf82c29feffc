/**
 * The command line of spec §17.1 step 1: serve, `migrate`, or `migrate --baseline <version>`;
 * plus `dev`, the local run on an embedded PostgreSQL (not in the reference).
 */
export type Command =
  | { readonly kind: 'serve' }
  | { readonly kind: 'migrate'; readonly baseline: string | null }
  | { readonly kind: 'dev'; readonly options: DevOptions }
  | { readonly kind: 'usage'; readonly problem: string };

export interface DevOptions {
  /** `--config <file>`; the packaged demo configuration when null. */
  readonly configFile: string | null;
  /** `--data-dir <dir>`; `.queuebox/postgres` under the working directory when null. */
  readonly dataDir: string | null;
  /** `--postgres-port <port>`; a free port (the previous one when still free) when null. */
  readonly postgresPort: number | null;
}

export const USAGE = `Usage: queuebox [command]

Commands:
  (none)                          start the QueueBox service
  migrate                         apply the bundled database migrations, then exit
  migrate --baseline <version>    record <version> as applied without running it or earlier
                                  migrations, apply the later ones, then exit
  dev [--config <file>]           run locally on an embedded PostgreSQL (data in
      [--data-dir <dir>]          .queuebox/postgres, kept across runs) with a demo receiver;
      [--postgres-port <port>]    the demo configuration unless --config names one, its
                                  database settings replaced by the embedded database
                                  (a source checkout only: the image does not carry it)

Configuration: QUEUEBOX_CONFIG_FILE (default /etc/queuebox/queuebox.yml) and QUEUEBOX_* variables.
Logging: LOG_FORMAT (text | json), LOG_LEVEL (default INFO).`;

export function parseArguments(args: readonly string[]): Command {
  if (args.length === 0) return { kind: 'serve' };
  const [command, ...rest] = args;
  if (command === 'dev') return parseDev(rest);
  if (command !== 'migrate') return { kind: 'usage', problem: `Unknown command '${command}'.` };
  if (rest.length === 0) return { kind: 'migrate', baseline: null };
  if (
    rest[0] === '--baseline' &&
    rest.length === 2 &&
    rest[1] !== undefined &&
    rest[1].trim() !== ''
  ) {
    return { kind: 'migrate', baseline: rest[1].trim() };
  }
  return { kind: 'usage', problem: `Unexpected arguments to migrate: ${rest.join(' ')}.` };
}

const DEV_FLAGS = {
  '--config': 'configFile',
  '--data-dir': 'dataDir',
  '--postgres-port': 'postgresPort',
} as const;

function parseDev(rest: readonly string[]): Command {
  const values: Partial<Record<(typeof DEV_FLAGS)[keyof typeof DEV_FLAGS], string>> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] ?? '';
    const value = rest[i + 1];
    const key = Object.hasOwn(DEV_FLAGS, flag)
      ? DEV_FLAGS[flag as keyof typeof DEV_FLAGS]
      : undefined;
    if (key === undefined)
      return { kind: 'usage', problem: `Unexpected argument to dev: ${flag}.` };
    if (value === undefined || value.trim() === '' || value.startsWith('--')) {
      return { kind: 'usage', problem: `The dev option ${flag} needs a value.` };
    }
    if (values[key] !== undefined)
      return { kind: 'usage', problem: `The dev option ${flag} is given twice.` };
    values[key] = value.trim();
  }
  let postgresPort: number | null = null;
  if (values.postgresPort !== undefined) {
    postgresPort = Number(values.postgresPort);
    if (!Number.isInteger(postgresPort) || postgresPort < 1 || postgresPort > 65535) {
      return {
        kind: 'usage',
        problem: `--postgres-port must be a port number (1-65535), not '${values.postgresPort}'.`,
      };
    }
  }
  return {
    kind: 'dev',
    options: {
      configFile: values.configFile ?? null,
      dataDir: values.dataDir ?? null,
      postgresPort,
    },
  };
}
