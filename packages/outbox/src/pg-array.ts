const ESCAPED = /[\\"]/g;

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
    if (value === null || value === undefined) out += 'NULL';
    // Most values (ids, topics, keys) hold neither character: no regular expression for them.
    else if (value.includes('"') || value.includes('\\'))
      out += `"${value.replace(ESCAPED, '\\$&')}"`;
    else out += `"${value}"`;
  }
  return out + '}';
}
