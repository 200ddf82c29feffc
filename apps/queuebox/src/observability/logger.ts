import { pino, type Logger as PinoLogger } from 'pino';
import type { LogFields, Logger } from '@queuebox/core';

/**
 * The only place a pino logger is made. `LOG_FORMAT=json` writes one JSON object per line with
 * the logstash field names the reference's encoder used (`@timestamp`, `level`, `logger_name`,
 * `message`, `"service":"queuebox"` and the context keys), so log pipelines keep parsing;
 * `text` (the default) writes the reference's human line:
 * `<ISO time with offset> <LEVEL> [<thread>] <logger> <key=value ...> - <message>`.
 */
export type LogFormat = 'text' | 'json';

export interface LoggerOptions {
  readonly format: LogFormat;
  readonly level: string;
  readonly destination?: { write(line: string): void };
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/** Reads LOG_FORMAT and LOG_LEVEL; an unknown value is an error that names the variable. */
export function loggerOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): LoggerOptions {
  const format = (env.LOG_FORMAT ?? 'text').trim().toLowerCase();
  if (format !== 'text' && format !== 'json') {
    throw new Error(`LOG_FORMAT must be text or json, not '${env.LOG_FORMAT}'`);
  }
  const level = (env.LOG_LEVEL ?? 'INFO').trim().toLowerCase();
  const mapped = level === 'warning' ? 'warn' : level;
  if (!LEVELS.has(mapped)) {
    throw new Error(
      `LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, not '${env.LOG_LEVEL}'`,
    );
  }
  return { format, level: mapped };
}

export function createLogger(options: LoggerOptions, name = 'queuebox'): Logger {
  const out = options.destination ?? process.stdout;
  const destination =
    options.format === 'json' ? out : { write: (line: string) => out.write(toTextLine(line)) };
  const root = pino(
    {
      level: options.level,
      messageKey: 'message',
      base: { service: 'queuebox', logger_name: name },
      timestamp: () => `,"@timestamp":"${isoWithOffset(new Date())}"`,
      formatters: { level: (label) => ({ level: label.toUpperCase() }) },
    },
    destination,
  );
  return wrap(root);
}

function wrap(target: PinoLogger): Logger {
  const clean = (fields?: LogFields): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (!fields) return out;
    for (const [key, value] of Object.entries(fields))
      if (value !== null && value !== undefined) out[key] = value;
    return out;
  };
  return {
    debug: (message, fields) => target.debug(clean(fields), message),
    info: (message, fields) => target.info(clean(fields), message),
    warn: (message, fields) => target.warn(clean(fields), message),
    error: (message, fields) => target.error(clean(fields), message),
    child: (fields) => wrap(target.child(clean(fields))),
  };
}

const FIXED = new Set(['@timestamp', 'level', 'message', 'service', 'logger_name']);

function toTextLine(jsonLine: string): string {
  const record = JSON.parse(jsonLine) as Record<string, unknown>;
  const context = Object.entries(record)
    .filter(([key]) => !FIXED.has(key))
    .map(
      ([key, value]) =>
        `${oneLine(key)}=${typeof value === 'string' ? oneLine(value) : JSON.stringify(value)}`,
    )
    .join(' ');
  const level = String(record.level).padEnd(5);
  const message = typeof record.message === 'string' ? oneLine(record.message) : '';
  const logger = typeof record.logger_name === 'string' ? record.logger_name : 'queuebox';
  return `${String(record['@timestamp'])} ${level} [main] ${logger}${context ? ` ${context}` : ''} - ${message}\n`;
}

/**
 * Control characters and the Unicode line separators as escapes (`\n`, `\u2028`): a topic, an
 * event type or a key is sender data, and a line break in it must never start a line of its own
 * that a reader or a log pipeline would take for another record. JSON lines escape them already.
 */
// eslint-disable-next-line no-control-regex
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function oneLine(text: string): string {
  return text.replace(
    LINE_BREAKING,
    (char) => ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** ISO-8601 with the local offset and milliseconds, as the reference's text layout printed. */
export function isoWithOffset(date: Date): string {
  const offsetMinutes = -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes > 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
