/**
 * The command line behind the entry point (main.ts): `queuebox` serves, `queuebox migrate [--baseline <v>]` migrates,
 * `queuebox config check|print` checks or prints the configuration, `queuebox healthcheck` asks
 * the readiness route, `queuebox dev` runs locally on an embedded PostgreSQL; `--help`, `-h` and
 * `--version` answer and exit 0; anything else prints the usage and exits 2. A startup failure
 * prints one sanitized line and exits 1.
 */
import { sanitizeError, type Logger } from '@queuebox/core';
import { parseArguments, USAGE, type Command } from './arguments.js';
import type { CommandOutput } from './config-command.js';
import { createLogger, loggerOptionsFromEnv } from '../observability/logger.js';
import { QUEUEBOX_VERSION } from '../version.js';

// Each command loads only its own modules: the service's start does not wait for the offline
// check, the embedded database or the migrate command to be read and compiled, nor they for it.

const OUTPUT: CommandOutput = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
};

/** The commands that answer without the logger or the service: an exit code, or null. */
async function answerWithoutService(command: Command): Promise<number | null> {
  switch (command.kind) {
    case 'usage':
      process.stderr.write(`${command.problem}\n\n${USAGE}\n`);
      return 2;
    case 'help':
      OUTPUT.stdout(command.text);
      return 0;
    case 'version':
      OUTPUT.stdout(`queuebox ${QUEUEBOX_VERSION}`);
      return 0;
    case 'config-check':
    case 'config-print':
    case 'healthcheck': {
      const { runConfigCheck, runConfigPrint, withConfigFile } =
        await import('./config-command.js');
      const env = withConfigFile(process.env, command.configFile, process.cwd());
      if (typeof env === 'string') {
        OUTPUT.stderr(env);
        return 1;
      }
      if (command.kind === 'config-check') return runConfigCheck(env, OUTPUT);
      if (command.kind === 'config-print') return runConfigPrint(env, OUTPUT);
      const { runHealthcheck } = await import('./healthcheck.js');
      return runHealthcheck(env, command.timeoutMs, OUTPUT);
    }
    default:
      return null;
  }
}

async function main(): Promise<number> {
  const command = parseArguments(process.argv.slice(2));
  const answered = await answerWithoutService(command);
  if (answered !== null) return answered;
  let logger: Logger;
  try {
    logger = createLogger(loggerOptionsFromEnv(process.env));
  } catch (error: unknown) {
    process.stderr.write(`QueueBox could not start its logger. Reason: ${sanitizeError(error)}\n`);
    return 1;
  }
  try {
    if (command.kind === 'migrate') {
      const { runMigrate } = await import('./migrate.js');
      await runMigrate(process.env, logger, command.baseline);
      return 0;
    }
    if (command.kind === 'dev') {
      const json = process.env.LOG_FORMAT?.trim().toLowerCase() === 'json';
      const print = json
        ? (text: string) => logger.info(text)
        : (text: string) => process.stdout.write(`${text}\n`);
      const { runDev } = await import('./dev.js');
      return await runDev({
        env: process.env,
        logger,
        options: command.options,
        cwd: process.cwd(),
        print,
      });
    }
    // Spec §17.1 step 9: the signals are hooked to the shutdown sequence before step 10 starts
    // anything. Hooked only after the start returned, a SIGTERM that landed while a source was
    // still connecting killed the process with the poller running and exited without the §17.2
    // sequence (no exit 0, no "Shutdown complete").
    let signalled = false;
    let exitAfterStop: (code: number) => void = () => undefined;
    const stopped = new Promise<number>((resolve) => {
      exitAfterStop = resolve;
    });
    const onShutdownHook = (stop: () => Promise<void>) => {
      const onSignal = () => {
        signalled = true;
        void stop().then(() => exitAfterStop(0));
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    };
    const { startService } = await import('../startup/service.js');
    const started = (async () => {
      try {
        await startService({ env: process.env, logger, onShutdownHook });
      } catch (error: unknown) {
        // A start that a signal stopped may fail on what the shutdown closed: the stop decides.
        if (!signalled) throw error;
      }
      return stopped;
    })();
    // The race ends a start still waiting in step 10 (a source connecting) once the stop is done.
    return await Promise.race([started, stopped]);
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
