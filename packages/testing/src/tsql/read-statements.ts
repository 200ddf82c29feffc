import nodeSqlParser from 'node-sql-parser';
import { REVIEWED, type ReviewedStatement } from './reviewed.js';
import { splitBatch } from './split-batch.js';

const parser = new nodeSqlParser.Parser();

export interface Reading {
  readonly statement: string;
  /** Empty: the parser read it; otherwise the reviewed entries that explain why it cannot. */
  readonly reviewed: readonly ReviewedStatement[];
}

/** Reads a batch statement by statement; throws on a statement neither parsed nor reviewed. */
export function readBatch(text: string): Reading[] {
  return splitBatch(text).flatMap(readStatement);
}

function parses(text: string): boolean {
  try {
    parser.astify(text, { database: 'transactsql' });
    return true;
  } catch {
    return false;
  }
}

const STATEMENT_START =
  /^(CREATE|ALTER|EXEC|SELECT|INSERT|UPDATE|DELETE|WITH|DECLARE|BEGIN|THROW)\b/i;

function readStatement(statement: string): Reading[] {
  // EXEC('...') with a literal: the parser accepts the EXEC without looking inside the string,
  // so the string itself is read as a batch.
  const exec = /^EXEC\s*\(\s*'((?:[^']|'')*)'\s*\)$/i.exec(statement);
  if (exec) return readBatch(exec[1]!.replace(/''/g, "'"));
  const guarded = splitIf(statement);
  if (guarded) {
    const condition = `SELECT CASE WHEN ${guarded.condition} THEN 1 ELSE 0 END`;
    if (!parses(condition)) throw unreadable(`IF condition: ${guarded.condition}`);
    return [{ statement: condition, reviewed: [] }, ...readBody(guarded.body)];
  }
  if (parses(statement)) return [{ statement, reviewed: [] }];
  const whole = REVIEWED.find((entry) => !entry.strip && entry.pattern.test(statement));
  if (whole) return [{ statement, reviewed: [whole] }];
  // Clauses the parser lacks: remove each reviewed one; what is left must parse.
  const partial = REVIEWED.filter((entry) => entry.strip && entry.pattern.test(statement));
  const rest = partial.reduce(
    (text, entry) => text.replace(entry.strip!, entry.substitute ?? ''),
    statement,
  );
  if (partial.length > 0 && parses(rest)) return [{ statement, reviewed: partial }];
  throw unreadable(statement);
}

function readBody(body: string): Reading[] {
  const block = /^BEGIN\b([\s\S]*)\bEND$/i.exec(body.trim());
  return block ? readBatch(block[1]!) : readStatement(body);
}

/** `IF <condition> <statement>`, the condition ending at depth 0 before a statement keyword. */
function splitIf(statement: string): { condition: string; body: string } | null {
  if (!/^IF\b/i.test(statement)) return null;
  let depth = 0;
  for (let i = 3; i < statement.length; i++) {
    const ch = statement[i]!;
    if (ch === "'") {
      i = statement.indexOf("'", i + 1);
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth === 0 && /\s/.test(ch) && STATEMENT_START.test(statement.slice(i + 1))) {
      return { condition: statement.slice(3, i).trim(), body: statement.slice(i + 1).trim() };
    }
  }
  return null;
}

function unreadable(statement: string): Error {
  return new Error(
    `node-sql-parser (transactsql) cannot read this statement and no reviewed entry explains why: ${statement}`,
  );
}
