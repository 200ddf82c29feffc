import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inboxSql, type SqlDialect } from './index.js';

/**
 * The shipped pull SQL (examples/pull/sql/<dialect>/*.sql, spec §9) is this package's
 * statements on the default names, under each file's header comment, so a worker written in
 * any language runs exactly what @queuebox/inbox runs (and, on SQL Server, exactly what
 * @queuebox/sqlserver's pull contract and statement-parse test read from those files). After
 * changing a statement, rewrite the files' bodies with
 * `QUEUEBOX_WRITE_EXAMPLES=1 pnpm vitest run packages/inbox/src/examples.test.ts`.
 */
function split(text: string): { header: string; body: string } {
  const lines = text.split('\n');
  let n = 0;
  while (n < lines.length && lines[n]!.startsWith('--')) n++;
  return { header: lines.slice(0, n).join('\n'), body: lines.slice(n).join('\n') };
}

describe.each<SqlDialect>(['postgresql', 'sqlserver'])('the shipped pull SQL (%s)', (dialect) => {
  const dir = new URL(`../../../examples/pull/sql/${dialect}/`, import.meta.url);
  const statements = inboxSql(dialect);
  it.each(Object.keys(statements) as (keyof typeof statements)[])(
    '%s.sql is the package statement under its header',
    (name) => {
      const file = new URL(`${name}.sql`, dir);
      const { header, body } = split(readFileSync(file, 'utf8'));
      expect(header).toMatch(/^-- QueueBox pull /);
      if (process.env.QUEUEBOX_WRITE_EXAMPLES === '1') {
        writeFileSync(file, `${header}\n${statements[name].text}`);
        return;
      }
      expect(body).toBe(statements[name].text);
    },
  );
});
