#!/usr/bin/env node
/**
 * QueueBox entry point: `queuebox` serves, `queuebox migrate [--baseline <v>]` migrates,
 * `queuebox dev` runs locally on an embedded PostgreSQL, anything else prints the usage and
 * exits 2. A startup failure prints one sanitized line and exits 1.
 */
import { sanitizeError, type Logger } from '@queuebox/core';
import { parseArguments, USAGE } from './cli/arguments.js';
import { runDev } from './cli/dev.js';
import { runMigrate } from './cli/migrate.js';
import { createLogger, loggerOptionsFromEnv } from './observability/logger.js';
import { startService } from './startup/service.js';

async function main(): Promise<number> {
  const command = parseArguments(process.argv.slice(2));
  if (command.kind === 'usage') {
    process.stderr.write(`${command.problem}\n\n${USAGE}\n`);
    return 2;
  }
  let logger: Logger;
  try {
    logger = createLogger(loggerOptionsFromEnv(process.env));
  } catch (error: unknown) {
    process.stderr.write(`QueueBox could not start its logger. Reason: ${sanitizeError(error)}\n`);
    return 1;
  }
  try {
    if (command.kind === 'migrate') {
      await runMigrate(process.env, logger, command.baseline);
      return 0;
    }
    if (command.kind === 'dev') {
      const json = process.env.LOG_FORMAT?.trim().toLowerCase() === 'json';
      const print = json
        ? (text: string) => logger.info(text)
        : (text: string) => process.stdout.write(`${text}\n`);
      return await runDev({
        env: process.env,
        logger,
        options: command.options,
        cwd: process.cwd(),
        print,
      });
    }
    const service = await startService({ env: process.env, logger });
    return await new Promise<number>((resolve) => {
      const stop = () => {
        void service.stop().then(() => resolve(0));
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
  } catch (error: unknown) {
    const text =
      error instanceof Error && error.name === 'StartupFailure'
        ? error.message
        : sanitizeError(error);
    // A configuration error lists one problem per line; the logger writes a line break as an
    // escape (a record is one line), so each line of this operator text is a record of its own.
    for (const line of text.split('\n')) if (line.trim() !== '') logger.error(line);
    return 1;
  }
}

// Exit explicitly: a driver socket left by a failed start must not keep the process alive.
main().then(
  (code) => setTimeout(() => process.exit(code), 50),
  (error: unknown) => {
    process.stderr.write(`${sanitizeError(error)}\n`);
    process.exit(1);
  },
);
