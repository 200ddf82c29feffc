/**
 * Splits a T-SQL batch into its statements for the statement-parse test: at `;` outside string
 * literals, bracketed names, comments and parentheses, keeping a `BEGIN ... END` block (not
 * `BEGIN TRANSACTION`) whole, and dropping comments. Good enough for the text this package
 * writes; it is test support, not a T-SQL parser.
 */
export function splitBatch(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let depth = 0;
  let blocks = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const rest = text.slice(i);
    if (rest.startsWith('--')) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
      current += ' ';
      continue;
    }
    if (ch === "'" || ch === '[') {
      const close = ch === "'" ? "'" : ']';
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === close) {
          if (ch === "'" && text[j + 1] === "'") j++;
          else break;
        }
      }
      current += text.slice(i, j + 1);
      i = j;
      continue;
    }
    const word = /^[A-Za-z_]+/.exec(rest)?.[0]?.toUpperCase();
    const boundary = i === 0 || !/[A-Za-z0-9_@]/.test(text[i - 1]!);
    if (word !== undefined && boundary) {
      if (word === 'BEGIN' && !/^BEGIN\s+TRAN/i.test(rest)) blocks++;
      if (word === 'END' && blocks > 0) blocks--;
      current += text.slice(i, i + word.length);
      i += word.length - 1;
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ';' && depth === 0 && blocks === 0) {
      push(out, current);
      current = '';
      continue;
    }
    current += ch;
  }
  push(out, current);
  return out;
}

function push(out: string[], statement: string): void {
  const clean = statement.replace(/\s+/g, ' ').trim();
  if (clean !== '') out.push(clean);
}

/** `@name` tokens outside string literals and bracketed names; `@@ROWCOUNT` excluded. */
export function variablesIn(text: string): string[] {
  const stripped = withoutComments(text)
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/\[[^\]]*\]/g, '[]');
  return [...stripped.matchAll(/(?<![@\w])@([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** Locals the text declares itself (`DECLARE @x INT`, `DECLARE @a INT, @b INT`). */
export function declaredIn(text: string): string[] {
  const stripped = withoutComments(text).replace(/'(?:[^']|'')*'/g, "''");
  const names: string[] = [];
  for (const match of stripped.matchAll(/\bDECLARE\s+([^;]*)/gi)) {
    for (const part of match[1]!.split(',')) {
      const name = /^\s*@([A-Za-z_][A-Za-z0-9_]*)/.exec(part)?.[1];
      if (name) names.push(name);
    }
  }
  return names;
}

/** `-- ...` line comments removed (outside string literals): a comment may hold `'` or `@p1`. */
export function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") {
      const end = /^'(?:[^']|'')*'/.exec(text.slice(i))?.[0] ?? text.slice(i);
      out += end;
      i += end.length - 1;
    } else if (text.startsWith('--', i)) {
      const newline = text.indexOf('\n', i);
      i = newline < 0 ? text.length : newline - 1;
    } else out += text[i];
  }
  return out;
}
