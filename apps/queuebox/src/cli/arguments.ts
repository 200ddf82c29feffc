/** The command line of spec §17.1 step 1: serve, `migrate`, or `migrate --baseline <version>`. */
export type Command =
  | { readonly kind: 'serve' }
  | { readonly kind: 'migrate'; readonly baseline: string | null }
  | { readonly kind: 'usage'; readonly problem: string };

export const USAGE = `Usage: queuebox [command]

Commands:
  (none)                          start the QueueBox service
  migrate                         apply the bundled database migrations, then exit
  migrate --baseline <version>    record <version> as applied without running it or earlier
                                  migrations, apply the later ones, then exit

Configuration: QUEUEBOX_CONFIG_FILE (default /etc/queuebox/queuebox.yml) and QUEUEBOX_* variables.
Logging: LOG_FORMAT (text | json), LOG_LEVEL (default INFO).`;

export function parseArguments(args: readonly string[]): Command {
  if (args.length === 0) return { kind: 'serve' };
  const [command, ...rest] = args;
  if (command !== 'migrate') return { kind: 'usage', problem: `Unknown command '${command}'.` };
  if (rest.length === 0) return { kind: 'migrate', baseline: null };
  if (rest[0] === '--baseline' && rest.length === 2 && rest[1] !== undefined && rest[1].trim() !== '') {
    return { kind: 'migrate', baseline: rest[1].trim() };
  }
  return { kind: 'usage', problem: `Unexpected arguments to migrate: ${rest.join(' ')}.` };
}
