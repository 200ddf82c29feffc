/**
 * The usage texts: `queuebox --help` prints the whole list, `queuebox <command> --help` the
 * command's own. A wrong word prints the whole list on stderr (exit 2, spec §17.1).
 */

const SERVE = `  (none)                          start the QueueBox service`;

const MIGRATE = `  migrate                         apply the bundled database migrations, then exit
  migrate --baseline <version>    record <version> as applied without running it or earlier
                                  migrations, apply the later ones, then exit`;

const CONFIG = `  config check [--config <file>]  check the configuration as the start does, without
                                  connecting to the database or a broker; lists every
                                  problem; exit 0 when it would start, 1 when not
  config print [--config <file>]  print the effective configuration, each value with its
                                  source (file, variable or default), every secret masked`;

const HEALTHCHECK = `  healthcheck [--config <file>]   ask the readiness route of the QueueBox configured here
    [--timeout-ms <ms>]           (management port when set, else the HTTP port);
                                  exit 0 when ready, 1 when not (the image's HEALTHCHECK)`;

const DEV = `  dev [--config <file>]           run locally on an embedded PostgreSQL (data in
      [--data-dir <dir>]          .queuebox/postgres, kept across runs; run as root from a
      [--postgres-port <port>]    checkout the postgres user cannot enter, in
                                  /var/tmp/queuebox-dev/data/<path>-<hash>/postgres, as the
                                  start text says) with a demo receiver; the demo
                                  configuration unless --config names one, its database
                                  settings replaced by the embedded database
                                  (a source checkout only: the image does not carry it)`;

const ENVIRONMENT = `Configuration: QUEUEBOX_CONFIG_FILE (default /etc/queuebox/queuebox.yml) and QUEUEBOX_* variables;
--config <file> stands for QUEUEBOX_CONFIG_FILE=<file>.
Logging: LOG_FORMAT (text | json), LOG_LEVEL (default INFO).`;

export const USAGE = `Usage: queuebox [command]

Commands:
${SERVE}
${MIGRATE}
${CONFIG}
${HEALTHCHECK}
${DEV}
  --help, -h                      print this text
  --version                       print the version

${ENVIRONMENT}`;

/** The usage of one command, for `queuebox <command> --help`. */
export const COMMAND_USAGE = {
  migrate: `Usage: queuebox migrate [--baseline <version>]\n\n${MIGRATE}\n\n${ENVIRONMENT}`,
  config: `Usage: queuebox config check|print [--config <file>]\n\n${CONFIG}\n\n${ENVIRONMENT}`,
  healthcheck: `Usage: queuebox healthcheck [--config <file>] [--timeout-ms <ms>]\n\n${HEALTHCHECK}\n\n${ENVIRONMENT}`,
  dev: `Usage: queuebox dev [--config <file>] [--data-dir <dir>] [--postgres-port <port>]\n\n${DEV}\n\n${ENVIRONMENT}`,
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;
