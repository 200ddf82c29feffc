/**
 * A T-SQL statement as this package sends it: the text and the parameters it binds, by name
 * (`@id` in the text, `id` here) and SQL type. Every value goes in as a parameter; only
 * validated, quoted identifiers are part of the text. Builders return this shape so the
 * statement-parse test can read every statement the package can send and check that it binds
 * exactly the parameters it declares.
 */
export type ParamType =
  | 'nvarchar'
  | 'nvarchar(max)'
  | 'varchar'
  | 'int'
  | 'bigint'
  | 'bit'
  | 'uniqueidentifier'
  | 'datetime2';

export interface Param {
  readonly name: string;
  readonly type: ParamType;
  readonly value: unknown;
}

export interface Statement {
  readonly text: string;
  readonly params: readonly Param[];
}

export function statement(text: string, params: readonly Param[] = []): Statement {
  return { text, params };
}

export const nvarchar = (name: string, value: string | null): Param => ({
  name,
  type: 'nvarchar',
  value,
});
export const nvarcharMax = (name: string, value: string | null): Param => ({
  name,
  type: 'nvarchar(max)',
  value,
});
export const varchar = (name: string, value: string | null): Param => ({
  name,
  type: 'varchar',
  value,
});
export const int = (name: string, value: number | null): Param => ({ name, type: 'int', value });
export const bigint = (name: string, value: number | bigint | null): Param => ({
  name,
  type: 'bigint',
  value,
});
export const bit = (name: string, value: boolean | null): Param => ({ name, type: 'bit', value });
export const uuid = (name: string, value: string | null): Param => ({
  name,
  type: 'uniqueidentifier',
  value,
});
/** App-clock times: bound as UTC DATETIME2 (the connection runs with useUTC), spec §3.7. */
export const datetime2 = (name: string, value: Date | null): Param => ({
  name,
  type: 'datetime2',
  value,
});
