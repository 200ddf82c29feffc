/**
 * The one Logger fake: it records every line with the fields of its child chain merged in, so a
 * test can assert what was logged, at which level and with which context. Children share the
 * parent's `lines`. Methods are bound (arrow properties), so a logger method passed on as a
 * callback still records.
 */
import type { LogFields, Logger } from '@queuebox/core';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: LogFields;
}

export class RecordingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly fields: LogFields = {},
    /** `performance.now()` of each line, by index in `lines`: outage tests measure intervals. */
    readonly times: number[] = [],
  ) {}

  readonly debug = (message: string, fields?: LogFields): void =>
    this.push('debug', message, fields);
  readonly info = (message: string, fields?: LogFields): void => this.push('info', message, fields);
  readonly warn = (message: string, fields?: LogFields): void => this.push('warn', message, fields);
  readonly error = (message: string, fields?: LogFields): void =>
    this.push('error', message, fields);

  readonly child = (fields: LogFields): RecordingLogger =>
    new RecordingLogger(this.lines, { ...this.fields, ...fields }, this.times);

  /** The lines of one level. */
  at(level: LogLevel): LogLine[] {
    return this.lines.filter((line) => line.level === level);
  }

  /** The messages of one level, or of all levels. */
  messages(level?: LogLevel): string[] {
    return (level === undefined ? this.lines : this.at(level)).map((line) => line.message);
  }

  /** The lines whose message starts with `prefix`, each with the time it was logged. */
  timed(prefix: string): { readonly line: LogLine; readonly atMs: number }[] {
    return this.lines.flatMap((line, index) =>
      line.message.startsWith(prefix) ? [{ line, atMs: this.times[index] ?? Number.NaN }] : [],
    );
  }

  private push(level: LogLevel, message: string, fields?: LogFields): void {
    this.lines.push({ level, message, fields: { ...this.fields, ...fields } });
    this.times.push(performance.now());
  }
}

/** A RecordingLogger, optionally writing into a list the test already holds. */
export function recordingLogger(lines: LogLine[] = []): RecordingLogger {
  return new RecordingLogger(lines);
}
