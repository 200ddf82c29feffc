import { eventually as eventuallyWithin } from '@queuebox/testing';
import {
  InboxWorker,
  type InboxConnectionSource,
  type InboxHandler,
  type InboxLogger,
  type InboxOptions,
} from '../src/index.js';

/** Test support for the pull worker's tests: a claim counter, a recording logger, a runner. */

/** Counts the claims a worker runs (for the polling-storm rule). */
export function countingClaims(
  source: InboxConnectionSource,
  claimText: string,
): {
  source: InboxConnectionSource;
  claims: () => number;
} {
  let claims = 0;
  return {
    claims: () => claims,
    source: {
      async connect() {
        const connection = await source.connect();
        return {
          ...connection,
          query(text, params) {
            if (text === claimText) claims++;
            return connection.query(text, params);
          },
        };
      },
    },
  };
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
}

export function recordingLogger(): InboxLogger & { lines: LogLine[]; messages(): string[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  return {
    lines,
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: () => lines.map((l) => l.message),
  };
}

export interface Running {
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** Starts `worker.run(handler, signal)`; `stop` aborts the signal and waits for run to settle. */
export function start(
  connections: InboxConnectionSource,
  options: InboxOptions,
  handler: InboxHandler,
): Running {
  const controller = new AbortController();
  const done = new InboxWorker(connections, options).run(handler, controller.signal);
  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/** Polls `check` until it returns a value; a worker's test waits up to 15 s by default. */
export function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  return eventuallyWithin(check, timeoutMs);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
