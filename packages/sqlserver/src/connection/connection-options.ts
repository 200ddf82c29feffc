import { QueueBoxError, type DatabaseConfig } from '@queuebox/core';
import type { ConnectionConfiguration } from 'tedious';

/**
 * The `jdbc:sqlserver://` URL (already split by @queuebox/config into host, port, database and
 * properties) in tedious terms. Properties are read the way mssql-jdbc reads them where tedious
 * has an equivalent; properties with no equivalent that only tune the JVM driver are ignored,
 * and the ones that would change who logs in or how are refused, so a setting QueueBox cannot
 * honour never connects in some other way than the operator asked for.
 */

/**
 * Driver-side bound of one statement. Spec §9.2 / pull-client-api §8: at least 30 s, so the
 * server's 10 s app-lock wait raises Msg 51000 (or a negative result) before the driver gives up;
 * an aborted request leaves the transaction-owned lock held until the connection resets.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** mssql-jdbc's login modes that are SQL Server authentication with user name and password. */
const PASSWORD_AUTHENTICATION = new Set(['sqlpassword', 'notspecified']);

export function connectionConfig(database: DatabaseConfig): ConnectionConfiguration {
  const first = database.connection.hosts[0];
  if (!first) {
    throw new QueueBoxError(
      'config_invalid',
      "'database.url' names no server, so QueueBox cannot connect.",
    );
  }
  const params = lowerKeys(database.connection.params);
  refuseOtherLogins(params);
  const instanceName = params.instancename;
  // mssql-jdbc: a port written in the URL wins over the instance name (the SQL Browser lookup is
  // skipped); tedious refuses both at once, so only one of them is passed on.
  const useInstance =
    instanceName !== undefined && instanceName !== '' && !urlNamesPort(database.url);
  return {
    server: first.host,
    authentication: {
      type: 'default',
      options: { userName: database.username, password: database.password.reveal() },
    },
    options: {
      ...(useInstance ? { instanceName } : { port: first.port }),
      ...(database.connection.database === '' ? {} : { database: database.connection.database }),
      encrypt: encryptFrom(params.encrypt),
      trustServerCertificate: booleanProperty(params, 'trustServerCertificate', false),
      ...(params.hostnameincertificate ? { serverName: params.hostnameincertificate } : {}),
      appName: params.applicationname ?? 'queuebox',
      multiSubnetFailover: booleanProperty(params, 'multiSubnetFailover', false),
      readOnlyIntent: (params.applicationintent ?? '').toLowerCase() === 'readonly',
      connectTimeout: database.connectionTimeoutMs,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Spec §3.7: every application-clock time is bound, and every DATETIME2 read, as UTC,
      // never as the host's local wall clock (what the reference's JVM driver did).
      useUTC: true,
      // XACT_ABORT ON: an error inside a claim transaction rolls it back on the server, so no
      // transaction (and no transaction-owned app lock) stays open on a pooled connection.
      abortTransactionOnError: true,
      // Filtered indexes (V1, V3, V8, V11) need QUOTED_IDENTIFIER ON; tedious's default, pinned.
      enableQuotedIdentifier: true,
      rowCollectionOnRequestCompletion: false,
      useColumnNames: false,
    },
  };
}

function lowerKeys(params: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) out[key.toLowerCase()] = value;
  return out;
}

function refuseOtherLogins(params: Record<string, string>): void {
  if ((params.integratedsecurity ?? 'false').toLowerCase() !== 'false') {
    throw new QueueBoxError(
      'config_invalid',
      "'database.url' sets integratedSecurity, which QueueBox does not support: it logs in with SQL Server authentication only. Remove integratedSecurity from the URL and set 'database.username' and 'database.password' to a SQL Server login.",
    );
  }
  const authentication = params.authentication;
  if (authentication !== undefined && !PASSWORD_AUTHENTICATION.has(authentication.toLowerCase())) {
    throw new QueueBoxError(
      'config_invalid',
      `'database.url' sets authentication=${authentication}, which QueueBox does not support: it logs in with SQL Server authentication only. Remove the property (or set authentication=SqlPassword) and set 'database.username' and 'database.password'.`,
    );
  }
}

/** mssql-jdbc 10.2+: encrypt defaults to true; `strict` is TDS 8.0; `mandatory`/`optional` alias. */
export function encryptFrom(value: string | undefined): boolean | 'strict' {
  if (value === undefined || value === '') return true;
  switch (value.toLowerCase()) {
    case 'true':
    case 'mandatory':
      return true;
    case 'false':
    case 'optional':
      return false;
    case 'strict':
      return 'strict';
    default:
      throw new QueueBoxError(
        'config_invalid',
        `'database.url' has encrypt=${value}; use true, false or strict.`,
      );
  }
}

function booleanProperty(params: Record<string, string>, key: string, fallback: boolean): boolean {
  const value = params[key.toLowerCase()];
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new QueueBoxError(
    'config_invalid',
    `'database.url' has ${key}=${value}; use true or false.`,
  );
}

/** Whether the URL itself names a port (`host:1500`, `host\inst:1500` or `;portNumber=`). */
export function urlNamesPort(url: string): boolean {
  const rest = url.trim().replace(/^jdbc:sqlserver:\/\//i, '');
  const [location = '', ...properties] = rest.split(';');
  const afterHost = location.includes(']') ? location.slice(location.indexOf(']') + 1) : location;
  if (afterHost.includes(':')) return true;
  return properties.some((property) => /^\s*(portnumber|port)\s*=/i.test(property));
}
