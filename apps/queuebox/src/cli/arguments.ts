/**
 * The command line of spec §17.1 step 1: serve, `migrate`, or `migrate --baseline <version>`;
 * plus what the reference did not have: `--help`/`-h` and `--version` (exit 0; any other
 * unknown word keeps exit 2), `config check|print`, `healthcheck` (the image's HEALTHCHECK),
 * and `dev`, the local run on an embedded PostgreSQL.
 */
import { COMMAND_USAGE, USAGE, type CommandName } from './usage.js';

export { USAGE } from './usage.js';

export type Command =
  | { readonly kind: 'serve' }
  | { readonly kind: 'migrate'; readonly baseline: string | null }
  | { readonly kind: 'dev'; readonly options: DevOptions }
  | { readonly kind: 'config-check'; readonly configFile: string | null }
  | { readonly kind: 'config-print'; readonly configFile: string | null }
  | {
      readonly kind: 'healthcheck';
      readonly configFile: string | null;
      readonly timeoutMs: number | null;
    }
  /** Prints `text` on stdout and exits 0. */
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version' }
  /** Prints `problem` and the usage on stderr and exits 2. */
  | { readonly kind: 'usage'; readonly problem: string };

export interface DevOptions {
  /** `--config <file>`; the packaged demo configuration when null. */
  readonly configFile: string | null;
  /** `--data-dir <dir>`; `.queuebox/postgres` under the working directory when null. */
  readonly dataDir: string | null;
  /** `--postgres-port <port>`; a free port (the previous one when still free) when null. */
  readonly postgresPort: number | null;
}

const HELP = new Set(['--help', '-h']);

export function parseArguments(args: readonly string[]): Command {
  if (args.length === 0) return { kind: 'serve' };
  const [command = '', ...rest] = args;
  if (args.length === 1 && HELP.has(command)) return { kind: 'help', text: USAGE };
  if (args.length === 1 && command === '--version') return { kind: 'version' };
  if (Object.hasOwn(COMMAND_USAGE, command) && rest.length === 1 && HELP.has(rest[0] ?? '')) {
    return { kind: 'help', text: COMMAND_USAGE[command as CommandName] };
  }
  switch (command) {
    case 'migrate':
      return parseMigrate(rest);
    case 'dev':
      return parseDev(rest);
    case 'config':
      return parseConfig(rest);
    case 'healthcheck':
      return parseHealthcheck(rest);
    default:
      return { kind: 'usage', problem: `Unknown command '${command}'.` };
  }
}

function parseMigrate(rest: readonly string[]): Command {
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

function parseConfig(rest: readonly string[]): Command {
  const [action, ...options] = rest;
  if (action !== 'check' && action !== 'print') {
    return {
      kind: 'usage',
      problem:
        action === undefined
          ? 'config needs check or print.'
          : `Unknown config command '${action}'; use check or print.`,
    };
  }
  const parsed = parseOptions(`config ${action}`, options, { '--config': 'configFile' });
  if ('problem' in parsed) return { kind: 'usage', problem: parsed.problem };
  return {
    kind: action === 'check' ? 'config-check' : 'config-print',
    configFile: parsed.configFile ?? null,
  };
}

function parseHealthcheck(rest: readonly string[]): Command {
  const parsed = parseOptions('healthcheck', rest, {
    '--config': 'configFile',
    '--timeout-ms': 'timeoutMs',
  });
  if ('problem' in parsed) return { kind: 'usage', problem: parsed.problem };
  let timeoutMs: number | null = null;
  if (parsed.timeoutMs !== undefined) {
    timeoutMs = Number(parsed.timeoutMs);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
      return {
        kind: 'usage',
        problem: `--timeout-ms must be a whole number of milliseconds above 0, not '${parsed.timeoutMs}'.`,
      };
    }
  }
  return { kind: 'healthcheck', configFile: parsed.configFile ?? null, timeoutMs };
}

function parseDev(rest: readonly string[]): Command {
  const values = parseOptions('dev', rest, {
    '--config': 'configFile',
    '--data-dir': 'dataDir',
    '--postgres-port': 'postgresPort',
  });
  if ('problem' in values) return { kind: 'usage', problem: values.problem };
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

/** `--flag value` pairs, each flag at most once; anything else is a usage problem. */
function parseOptions<K extends string>(
  command: string,
  rest: readonly string[],
  flags: Readonly<Record<string, K>>,
): Partial<Record<K, string>> | { readonly problem: string } {
  const values: Partial<Record<K, string>> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] ?? '';
    const value = rest[i + 1];
    const key = Object.hasOwn(flags, flag) ? flags[flag] : undefined;
    if (key === undefined) return { problem: `Unexpected argument to ${command}: ${flag}.` };
    if (value === undefined || value.trim() === '' || value.startsWith('--')) {
      return { problem: `The ${command} option ${flag} needs a value.` };
    }
    if (values[key] !== undefined)
      return { problem: `The ${command} option ${flag} is given twice.` };
    values[key] = value.trim();
  }
  return values;
}
