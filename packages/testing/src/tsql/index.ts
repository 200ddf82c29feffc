/**
 * Reading T-SQL without a SQL Server (dev only): what keeps a T-SQL syntax error out of CI where
 * no server runs. `readBatch` reads a batch statement by statement with node-sql-parser's
 * `transactsql` grammar and the one reviewed list of what that parser cannot read
 * (`REVIEWED`); `boundNames` are the `@names` a batch needs bound. Used by the statement-parse
 * tests of @queuebox/sqlserver (every statement it sends) and @queuebox/inbox (the pull
 * worker's SQL Server statements).
 */
export { readBatch, type Reading } from './read-statements.js';
export { REVIEWED, type ReviewedStatement } from './reviewed.js';
export { declaredIn, splitBatch, variablesIn, withoutComments } from './split-batch.js';
import { declaredIn, variablesIn } from './split-batch.js';

/** Named arguments of the system procedures QueueBox calls (sp_getapplock): not parameters. */
export const SYSTEM_ARGUMENTS: ReadonlySet<string> = new Set([
  'Resource',
  'LockMode',
  'LockOwner',
  'LockTimeout',
]);

/** The `@names` a batch uses that are neither its own locals nor system-procedure arguments. */
export function boundNames(text: string): string[] {
  const locals = new Set(declaredIn(text));
  return [...new Set(variablesIn(text).filter((n) => !locals.has(n) && !SYSTEM_ARGUMENTS.has(n)))];
}
