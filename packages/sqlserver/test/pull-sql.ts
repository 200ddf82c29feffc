/**
 * The shipped SQL Server pull statements (examples/pull/sql/sqlserver, spec §9.1) with the
 * parameters each binds by position (@p1..), as a worker binds them: read by the statement-parse
 * test and run by the pull statements contract.
 */
import { readFileSync } from 'node:fs';
import type { Param, ParamType, Statement } from '@queuebox/sqlserver';

const dir = new URL('../../../examples/pull/sql/sqlserver/', import.meta.url);

export const PULL_STATEMENTS = ['claim', 'renew', 'complete', 'retry', 'dead'] as const;
export type PullStatementName = (typeof PULL_STATEMENTS)[number];

/** The SQL type of each positional parameter, in order (spec §9.1). */
const PARAMETER_TYPES: Record<PullStatementName, readonly ParamType[]> = {
  claim: ['nvarchar', 'int', 'int', 'int'],
  renew: ['int', 'uniqueidentifier', 'uniqueidentifier'],
  complete: ['uniqueidentifier', 'uniqueidentifier'],
  retry: ['int', 'nvarchar(max)', 'uniqueidentifier', 'uniqueidentifier'],
  dead: ['nvarchar(max)', 'uniqueidentifier', 'uniqueidentifier'],
};

export function pullSqlText(name: PullStatementName): string {
  return readFileSync(new URL(`${name}.sql`, dir), 'utf8');
}

/** The file's text with `values` bound as @p1..@pN. */
export function pullStatement(
  name: PullStatementName,
  text: string,
  values: readonly unknown[],
): Statement {
  const types = PARAMETER_TYPES[name];
  if (values.length !== types.length)
    throw new Error(`${name}.sql binds ${types.length} parameters, not ${values.length}`);
  const params: Param[] = types.map((type, i) => ({ name: `p${i + 1}`, type, value: values[i] }));
  return { text, params };
}
