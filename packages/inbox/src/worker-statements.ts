import type { InboxStatements } from './sql/statement.js';

/**
 * The texts of the statements workers run themselves (claim, renew, complete, retry, dead): a
 * handful of fixed texts, run again and again, that an adapter may prepare once per connection.
 * Adapters recognise them by text, so a statement still goes through `query` (a caller's
 * wrapper of the connection sees every one) and a handler's own SQL is never prepared. The set
 * holds one entry per distinct schema and option set a worker was built with.
 */
const texts = new Set<string>();

export function registerWorkerStatements(statements: InboxStatements): void {
  const { claim, renew, complete, retry, dead } = statements;
  for (const statement of [claim, renew, complete, retry, dead]) texts.add(statement.text);
}

export function isWorkerStatement(text: string): boolean {
  return texts.has(text);
}
