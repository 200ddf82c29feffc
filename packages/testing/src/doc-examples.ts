import { readFileSync } from 'node:fs';

/**
 * The runnable examples of a Markdown page: each ```js block right after a marker
 * `<!-- example: expect /regex/ [stop] [empty] [sqlserver] -->`. `expect` is what its output
 * must show; `stop` means it runs until SIGTERM (sent once the output showed it); `empty` means
 * it wants a database without QueueBox's tables; `sqlserver` means it runs on SQL Server (by the
 * SQL Server suite of the package it shows, wherever a SQL Server answers), not on PostgreSQL.
 * Every js block of a page must carry a marker, so none is left out by accident.
 */
export interface DocExample {
  readonly page: string;
  readonly index: number;
  readonly code: string;
  readonly expect: RegExp;
  readonly stop: boolean;
  readonly empty: boolean;
  readonly sqlserver: boolean;
}

const MARKER =
  /<!-- example: expect \/(.+)\/((?: (?:stop|empty|sqlserver))*) -->\s*\n\s*```js\n([\s\S]*?)\n```/g;

export function examplesOf(path: string, page: string): DocExample[] {
  const text = readFileSync(path, 'utf8');
  const blocks = text.match(/```js\n/g)?.length ?? 0;
  const examples = [...text.matchAll(MARKER)].map((match, index) => ({
    page,
    index,
    code: match[3]!,
    expect: new RegExp(match[1]!),
    stop: match[2]!.includes('stop'),
    empty: match[2]!.includes('empty'),
    sqlserver: match[2]!.includes('sqlserver'),
  }));
  if (examples.length !== blocks) {
    throw new Error(`${page}: ${blocks} js blocks but ${examples.length} example markers`);
  }
  return examples;
}
