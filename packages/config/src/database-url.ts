/**
 * Parses `database.url` into what a driver connects with (spec §12.2). Accepted forms:
 * `jdbc:postgresql://host[:port][,host2...]/db?params` (the reference form),
 * `postgres://` / `postgresql://` URLs (user-info allowed; it can supply the credentials), and
 * `jdbc:sqlserver://host[\instance][:port];databaseName=db;...`.
 */
import type { DatabaseConnection, DatabaseType } from '@queuebox/core';

export interface ParsedDatabaseUrl {
  readonly type: DatabaseType;
  readonly connection: DatabaseConnection;
  /** User-info of a postgres:// URL, percent-decoded. */
  readonly username: string | null;
  readonly password: string | null;
}

export type DatabaseUrlResult =
  | { readonly ok: true; readonly value: ParsedDatabaseUrl }
  | { readonly ok: false; readonly reason: string };

const DEFAULT_PORT: Record<DatabaseType, number> = { postgresql: 5432, sqlserver: 1433 };

/** The type a URL is written for, or undefined for a form QueueBox does not read. */
export function databaseUrlType(url: string): DatabaseType | undefined {
  const lower = url.trim().toLowerCase();
  if (
    lower.startsWith('jdbc:postgresql://') ||
    lower.startsWith('postgres://') ||
    lower.startsWith('postgresql://')
  ) {
    return 'postgresql';
  }
  if (lower.startsWith('jdbc:sqlserver://')) return 'sqlserver';
  return undefined;
}

class UrlProblem extends Error {}

export function parseDatabaseUrl(url: string): DatabaseUrlResult {
  const trimmed = url.trim();
  try {
    const lower = trimmed.toLowerCase();
    if (lower.startsWith('jdbc:sqlserver://'))
      return { ok: true, value: parseSqlServer(trimmed.slice(17)) };
    if (lower.startsWith('jdbc:postgresql://'))
      return { ok: true, value: parsePostgres(trimmed.slice(18), false) };
    const scheme = /^postgres(?:ql)?:\/\//i.exec(trimmed);
    if (scheme !== null)
      return { ok: true, value: parsePostgres(trimmed.slice(scheme[0].length), true) };
    return { ok: false, reason: 'the URL form is not known' };
  } catch (error: unknown) {
    if (error instanceof UrlProblem) return { ok: false, reason: error.message };
    throw error;
  }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new UrlProblem(`'${text}' holds a broken percent escape`);
  }
}

function port(text: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= 65_535))
    throw new UrlProblem(`the port '${text}' is not a number between 1 and 65535`);
  return value;
}

/** `host`, `host:port`, `[::1]:port`; the port is undefined when the text names none. */
function hostAndPort(text: string): { host: string; port: number | undefined } {
  let host = text;
  let portText = '';
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw new UrlProblem(`the host '${text}' opens '[' without closing it`);
    const rest = text.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':'))
      throw new UrlProblem(`the host '${text}' is not valid`);
    host = text.slice(1, close);
    portText = rest.slice(1);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
  }
  return {
    host: host === '' ? 'localhost' : host,
    port: portText === '' ? undefined : port(portText),
  };
}

function parsePostgres(rest: string, allowUserInfo: boolean): ParsedDatabaseUrl {
  const queryAt = rest.indexOf('?');
  const head = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rest.slice(queryAt + 1);
  // The last `@` ends the user-info, so a password may hold an unencoded `@`.
  const at = head.lastIndexOf('@');
  let username: string | null = null;
  let password: string | null = null;
  if (at >= 0) {
    if (!allowUserInfo)
      throw new UrlProblem(
        'a jdbc:postgresql:// URL cannot carry a user name; set database.username',
      );
    const userInfo = head.slice(0, at);
    const colon = userInfo.indexOf(':');
    username = decode(colon < 0 ? userInfo : userInfo.slice(0, colon));
    password = colon < 0 ? null : decode(userInfo.slice(colon + 1));
    if (username === '') username = null;
  }
  const location = head.slice(at + 1);
  const slash = location.indexOf('/');
  const hostList = slash < 0 ? location : location.slice(0, slash);
  const database = slash < 0 ? '' : decode(location.slice(slash + 1));
  const hosts = hostList.split(',').map((h) => {
    const parsed = hostAndPort(h.trim());
    return { host: parsed.host, port: parsed.port ?? DEFAULT_PORT.postgresql };
  });
  const params: Record<string, string> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    params[decode(eq < 0 ? pair : pair.slice(0, eq))] = eq < 0 ? '' : decode(pair.slice(eq + 1));
  }
  return { type: 'postgresql', connection: { hosts, database, params }, username, password };
}

const SQL_SERVER_LOCATION_KEYS = new Set([
  'servername',
  'portnumber',
  'port',
  'databasename',
  'database',
]);

function parseSqlServer(rest: string): ParsedDatabaseUrl {
  const [location = '', ...properties] = rest.split(';');
  const all: Record<string, string> = {};
  const params: Record<string, string> = {};
  for (const property of properties) {
    if (property.trim() === '') continue;
    const eq = property.indexOf('=');
    if (eq < 0) throw new UrlProblem(`the property '${property}' has no '='`);
    const key = property.slice(0, eq).trim();
    const value = property.slice(eq + 1).trim();
    all[key.toLowerCase()] = value;
    if (!SQL_SERVER_LOCATION_KEYS.has(key.toLowerCase())) params[key] = value;
  }
  let server = location.trim();
  if (server === '') server = all.servername ?? '';
  if (server === '') throw new UrlProblem('the URL names no server');
  // `host\instance[:port]`: the driver finds the port of a named instance itself.
  const backslash = server.indexOf('\\');
  let hostText = server;
  if (backslash >= 0) {
    const instanceAndPort = server.slice(backslash + 1);
    const colon = instanceAndPort.indexOf(':');
    const instance = colon < 0 ? instanceAndPort : instanceAndPort.slice(0, colon);
    hostText = server.slice(0, backslash) + (colon < 0 ? '' : instanceAndPort.slice(colon));
    if (params.instanceName === undefined && instance !== '') params.instanceName = instance;
  }
  const parsed = hostAndPort(hostText);
  const propertyPort = all.portnumber ?? all.port;
  const host = {
    host: parsed.host,
    port: parsed.port ?? (propertyPort === undefined ? DEFAULT_PORT.sqlserver : port(propertyPort)),
  };
  const database = all.databasename ?? all.database ?? '';
  return {
    type: 'sqlserver',
    connection: { hosts: [host], database, params },
    username: null,
    password: null,
  };
}
