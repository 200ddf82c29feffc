/** A test-only Logger that records every line with the fields of its children. */
import type { LogFields, Logger } from '@queuebox/core';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
}

export interface RecordingLogger extends Logger {
  readonly lines: LogLine[];
  at(level: LogLine['level']): LogLine[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const make = (base: LogFields): Logger => {
    const log = (level: LogLine['level']) => (message: string, fields?: LogFields) => {
      lines.push({ level, message, fields: { ...base, ...fields } });
    };
    return {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return Object.assign(make({}), {
    lines,
    at: (level: LogLine['level']) => lines.filter((l) => l.level === level),
  });
}
