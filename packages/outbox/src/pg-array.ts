/**
 * A PostgreSQL array literal (`{"a",NULL,"b"}`) from text values. Every column goes over as
 * one text parameter cast in SQL (`$1::uuid[]`), so each client library binds plain strings
 * the same way and none needs to know how to send an array.
 */
export function pgArrayLiteral(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const value = values[i];
    out += value === null || value === undefined ? 'NULL' : `"${value.replace(/[\\"]/g, '\\$&')}"`;
  }
  return out + '}';
}
