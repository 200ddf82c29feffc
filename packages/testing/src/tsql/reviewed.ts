/**
 * The T-SQL that node-sql-parser's `transactsql` dialect (5.4.0) cannot read, reviewed one by one:
 * each entry matches a statement (after the test unwrapped IF guards and EXEC('...') strings,
 * whose contents are parsed on their own) and says why the parser fails on valid T-SQL. A
 * statement that fails to parse and matches no entry fails the test, and so does an entry that
 * no statement uses any more, so this list stays exactly as long as it must be.
 */
export interface ReviewedStatement {
  readonly pattern: RegExp;
  readonly reason: string;
  /**
   * When set, only this part is unreadable: the test removes it and the rest of the statement
   * must then parse, so the clause the parser lacks hides nothing else.
   */
  readonly strip?: RegExp;
  /** What replaces each stripped part (nothing when unset), where removing it breaks the rest. */
  readonly substitute?: string;
}

export const REVIEWED: readonly ReviewedStatement[] = [
  {
    pattern:
      /^EXEC @\w+ = sp_getapplock @Resource = N'[A-Za-z0-9_]+', @LockMode = 'Exclusive', @LockOwner = '(Session|Transaction)', @LockTimeout = -?\d+$/,
    reason:
      'EXEC of a system procedure with a return value and named arguments: the parser reads EXEC only with a string or a procedure name and positional arguments.',
  },
  {
    pattern: /^CREATE SEQUENCE outbox_sequence_seq AS BIGINT START WITH 1 INCREMENT BY 1$/,
    reason: 'CREATE SEQUENCE: the parser knows no sequence DDL for transactsql.',
  },
  {
    pattern:
      /^ALTER TABLE outbox ADD CONSTRAINT df_outbox_sequence DEFAULT \(NEXT VALUE FOR outbox_sequence_seq\) FOR sequence$/,
    reason:
      'A named DEFAULT constraint added with FOR <column>, and NEXT VALUE FOR: neither is in the parser grammar.',
  },
  {
    pattern:
      /^ALTER TABLE (inbox|\[\w+\]) ADD (consumption VARCHAR\(4\)|scheduled_at DATETIME2|attempt INT|headers NVARCHAR\(MAX\)) NOT NULL CONSTRAINT df_inbox_\w+ DEFAULT .+$/,
    reason:
      "A column added with a named DEFAULT constraint (CONSTRAINT df_... DEFAULT): the parser reads CONSTRAINT only before CHECK. The names are the reference schema's (df_inbox_headers).",
  },
  {
    pattern: /^THROW 51000, '[^']+', 1$/,
    reason:
      'THROW: the parser has no THROW statement. The claim raises Msg 51000 with it when sp_getapplock returns a negative result (spec §9.2).',
  },
  {
    pattern: / OUTPUT (CAST\()?INSERTED\.\[\w+\]( AS VARCHAR\(36\)\))? AS id( |$)/,
    strip: / OUTPUT (CAST\()?INSERTED\.\[\w+\]( AS VARCHAR\(36\)\))? AS id(?= |$)/,
    reason:
      'The OUTPUT INSERTED clause of an UPDATE (the claimed or fenced ids): not in the parser grammar. The UPDATE without it must parse.',
  },
  {
    pattern: /@@SPID\b/,
    strip: /@@SPID\b/g,
    substitute: '0',
    reason:
      'The system function @@SPID (the session id capture names its session by): the parser reads no @@ function there. The statement with a number in its place must parse.',
  },
  {
    pattern:
      /^EXEC @\w+ = sp_getapplock @Resource = @lockName, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0$/,
    reason:
      'EXEC of sp_getapplock with a return value and named arguments (as above), the resource bound as @lockName: the capture ownership lock.',
  },
  {
    pattern:
      /^EXEC @lockResult = sp_getapplock @Resource = @src, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 10000$/,
    reason:
      'The pull claim (examples/pull/sql/sqlserver/claim.sql): sp_getapplock with a return value and named arguments, the resource being the source name in a local.',
  },
  {
    pattern: / OUTPUT INSERTED\.\[[\w$]+\] INTO @claimed /,
    strip: / OUTPUT INSERTED\.\[[\w$]+\] INTO @claimed(?= )/,
    reason:
      'OUTPUT ... INTO a table variable (the pull claim collects the claimed ids to read them back in order): not in the parser grammar. The UPDATE without it must parse.',
  },
];
