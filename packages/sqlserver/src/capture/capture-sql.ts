import { int, nvarchar, statement, varchar, type Statement } from '../sql/statement.js';

/**
 * The T-SQL of `sqlserver-cdc` capture. Every value is bound; the one name that is part of the
 * text, the change table, comes from `cdc.change_tables` on the server and is quoted there with
 * QUOTENAME (see `changeTableOf`), never from configuration.
 */

/** The reference's ownership lock (spec §10, §10.1 step 3): per identity, owned by the session. */
export function captureLockResource(identity: string): string {
  return `queuebox_capture_${identity}`;
}

/**
 * The session's name: `<spid>@<login time>`. A spid alone is reused by the server for a later
 * connection, so it could name another process's session once ours ended.
 */
const SESSION_ID = `CONCAT(session_id, '@', CONVERT(VARCHAR(23), login_time, 126))`;
const OWN_SESSION = 'FROM sys.dm_exec_sessions WHERE session_id = @@SPID';

/**
 * sys.dm_tran_locks names an app lock `<principal>:[<first 32 characters>]:(<hash>)`; the LIKE
 * pattern of that middle part, with LIKE's own brackets and wildcards escaped.
 */
export function lockDescriptionPattern(resource: string): string {
  const shown = resource.slice(0, 32).replace(/[[_%]/g, (ch) => `[${ch}]`);
  return `%[[]${shown}]%`;
}

export const captureSql = {
  sessionId: statement(`SELECT ${SESSION_ID} AS id ${OWN_SESSION}`),
  /** sp_getapplock returns >= 0 when granted; timeout 0: never waits for another owner. */
  tryLock: (identity: string): Statement =>
    statement(
      `DECLARE @lockResult INT;
EXEC @lockResult = sp_getapplock @Resource = @lockName, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0;
SELECT @lockResult AS result;`,
      [nvarchar('lockName', captureLockResource(identity))],
    ),
  /**
   * The session that holds the lock. sys.dm_tran_locks shows only the first 32 characters of an
   * app lock's name (`0:[queuebox_capture_...]:(hash)`) and, without VIEW SERVER STATE, only the
   * caller's own locks; so the holder is a best effort, and null when the server does not say.
   */
  lockHolder: (identity: string): Statement =>
    statement(
      `SELECT TOP (1) CONCAT(l.request_session_id, '@', CONVERT(VARCHAR(23), s.login_time, 126)) AS id
FROM sys.dm_tran_locks AS l JOIN sys.dm_exec_sessions AS s ON s.session_id = l.request_session_id
WHERE l.resource_type = 'APPLICATION' AND l.resource_database_id = DB_ID() AND l.request_owner_type = 'SESSION'
  AND l.request_status = 'GRANT' AND l.request_mode = 'X' AND l.request_session_id <> @@SPID
  AND l.resource_description LIKE @lockPattern`,
      [nvarchar('lockPattern', lockDescriptionPattern(captureLockResource(identity)))],
    ),
  /** Still this session, and still holding the lock (APPLOCK_MODE is the caller's own view). */
  alive: (identity: string): Statement =>
    statement(
      `SELECT ${SESSION_ID} AS id, APPLOCK_MODE('public', @lockName, 'Session') AS mode ${OWN_SESSION}`,
      [nvarchar('lockName', captureLockResource(identity))],
    ),
  /**
   * KILL takes no variable, so its text is built on the server from the bound spid, and only
   * when that spid still has the login time the holder had (not a reused spid). Needs ALTER ANY
   * CONNECTION; without it the statement fails and the next attempt waits for the server's own
   * keepalive to end the session.
   */
  endSession: (spid: number, loginTime: string): Statement =>
    statement(
      `DECLARE @kill NVARCHAR(40) = N'KILL ' + CAST(@spid AS NVARCHAR(10));
IF EXISTS (SELECT 1 FROM sys.dm_exec_sessions WHERE session_id = @spid AND CONVERT(VARCHAR(23), login_time, 126) = @loginTime)
BEGIN
  EXEC (@kill);
  SELECT 1 AS ended;
END`,
      [int('spid', spid), varchar('loginTime', loginTime)],
    ),
  unlock: (identity: string): Statement =>
    statement(`EXEC sp_releaseapplock @Resource = @lockName, @LockOwner = 'Session'`, [
      nvarchar('lockName', captureLockResource(identity)),
    ]),
  registration: (identity: string): Statement =>
    statement(
      `SELECT identity_name, state_id, config_fingerprint FROM queuebox_capture_state WHERE identity_name = @identity`,
      [varchar('identity', identity)],
    ),
  register: (identity: string, stateId: string, fingerprint: string): Statement =>
    statement(
      `INSERT INTO queuebox_capture_state (identity_name, state_id, config_fingerprint)
SELECT @identity, @stateId, @fingerprint
WHERE NOT EXISTS (SELECT 1 FROM queuebox_capture_state WHERE identity_name = @identity)`,
      [
        varchar('identity', identity),
        varchar('stateId', stateId),
        varchar('fingerprint', fingerprint),
      ],
    ),
  /** Spec §10.1: `is_cdc_enabled = 1` for `DB_NAME()`. */
  databaseEnabled: statement(
    `SELECT name FROM sys.databases WHERE name = DB_NAME() AND is_cdc_enabled = 1`,
  ),
  /**
   * The capture instances of the outbox table, newest first (a table has at most two, while an
   * operator moves it to a new one). Asked only once the database has CDC: before that the
   * `cdc` schema does not exist.
   */
  captureInstances: (schema: string, table: string): Statement =>
    statement(
      `SELECT ct.capture_instance AS captureInstance,
  QUOTENAME(OBJECT_SCHEMA_NAME(ct.object_id)) + '.' + QUOTENAME(OBJECT_NAME(ct.object_id)) AS changeTable,
  OBJECT_SCHEMA_NAME(ct.source_object_id) AS sourceSchema
FROM cdc.change_tables AS ct
WHERE OBJECT_NAME(ct.source_object_id) = @table
ORDER BY ct.create_date DESC`,
      [nvarchar('table', table)],
    ),
  /** The highest LSN the capture job has written, database-wide; the stream's starting point. */
  maxLsn: statement(`SELECT CONVERT(VARCHAR(22), sys.fn_cdc_get_max_lsn(), 1) AS lsn`),
  /**
   * One poll: the changes after `@after` up to the current maximum, counted per operation
   * (1 delete, 2 insert, 3 and 4 update before and after image, 5 merge), and the lowest LSN
   * the instance still holds, which says whether cleanup removed changes the poll never saw.
   */
  poll: (changeTable: string, captureInstance: string, after: string): Statement =>
    statement(
      `DECLARE @upto BINARY(10) = sys.fn_cdc_get_max_lsn();
SELECT CONVERT(VARCHAR(22), @upto, 1) AS upto,
  CONVERT(VARCHAR(22), sys.fn_cdc_get_min_lsn(@captureInstance), 1) AS minLsn;
SELECT c.[__$operation] AS operation, COUNT(*) AS changes
FROM ${changeTable} AS c
WHERE c.[__$start_lsn] > CONVERT(BINARY(10), @after, 1) AND c.[__$start_lsn] <= @upto
GROUP BY c.[__$operation];`,
      [varchar('after', after), nvarchar('captureInstance', captureInstance)],
    ),
} as const;
