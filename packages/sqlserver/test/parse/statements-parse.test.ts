import { describe, expect, it } from 'vitest';
import { catalogue } from './catalogue.js';
import { readBatch, type Reading } from './read-statements.js';
import { REVIEWED } from './reviewed.js';
import { declaredIn, splitBatch, variablesIn } from './split-batch.js';

/**
 * No SQL Server runs here, so this is what keeps a T-SQL syntax error out of CI: every statement
 * the package can send is read with node-sql-parser's `transactsql` grammar (statements it cannot
 * read must be on the reviewed list, with the reason), and each binds exactly the parameters it
 * declares: a parameter in the text that is not bound fails on the server (Msg 137), a bound one
 * the text never names is a builder bug.
 */
const entries = catalogue();
const readings = new Map<string, Reading[]>();

describe('every T-SQL statement of @queuebox/sqlserver', () => {
  it.each(entries.map((entry) => [entry.name, entry] as const))(
    '%s parses (or is reviewed)',
    (_name, entry) => {
      const read = readBatch(entry.statement.text);
      expect(read.length).toBeGreaterThan(0);
      readings.set(entry.name, read);
    },
  );

  it.each(entries.map((entry) => [entry.name, entry] as const))(
    '%s binds exactly the parameters it declares',
    (_name, entry) => {
      const text = entry.statement.text;
      const locals = new Set(declaredIn(text));
      const used = new Set(
        variablesIn(text).filter((name) => !locals.has(name) && !SYSTEM_ARGUMENTS.has(name)),
      );
      const declared = entry.statement.params.map((param) => param.name);
      expect(new Set(declared).size).toBe(declared.length);
      expect([...used].sort()).toEqual([...declared].sort());
      // A local must never reuse a bound name (Msg 134, spec §9.2).
      for (const local of locals) expect(declared).not.toContain(local);
    },
  );

  it('uses every reviewed entry, so the list holds only what the parser really cannot read', () => {
    const all = entries.flatMap(
      (entry) => readings.get(entry.name) ?? readBatch(entry.statement.text),
    );
    const used = new Set(all.flatMap((reading) => reading.reviewed));
    expect(
      REVIEWED.filter((entry) => !used.has(entry)).map((entry) => entry.pattern.source),
    ).toEqual([]);
    // Most of the text is read by the parser; the reviewed part stays a small share. A statement
    // with a stripped clause (OUTPUT INSERTED) counts as read: the rest of it had to parse.
    const parsed = all.filter((reading) => reading.reviewed.every((entry) => entry.strip)).length;
    expect(parsed).toBeGreaterThan(all.length * 0.8);
  });

  it('can fail: a misspelled keyword and an unbound parameter are caught', () => {
    expect(() => readBatch('SELEC id FROM [outbox] WHERE id = @id')).toThrow(/cannot read/);
    expect(() => readBatch('UPDATE [outbox] SET [state] = @state WHERE')).toThrow(/cannot read/);
    expect(variablesIn("SELECT @a, '@notAParam', [@alsoNot], @@ROWCOUNT")).toEqual(['a']);
    expect(variablesIn("-- the caller's @p9\nSELECT @a, '--@b'")).toEqual(['a']);
    expect(splitBatch("SELECT 1; SELECT ';' AS x; IF 1 = 1 BEGIN SELECT 2; SELECT 3; END")).toEqual(
      ['SELECT 1', "SELECT ';' AS x", 'IF 1 = 1 BEGIN SELECT 2; SELECT 3; END'],
    );
  });
});

/** Named arguments of the system procedures the package calls: not bound parameters. */
const SYSTEM_ARGUMENTS = new Set(['Resource', 'LockMode', 'LockOwner', 'LockTimeout']);
