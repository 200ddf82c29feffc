import { spawn } from 'node:child_process';
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

/**
 * Runs one example file with plain Node in `cwd` (whose node_modules decide what it imports),
 * with only PATH and `env` in its environment. A `stop` example gets SIGTERM once its output
 * showed what it expects; any example is killed after 45 s.
 */
export function runExampleFile(
  file: string,
  example: Pick<DocExample, 'stop' | 'expect'>,
  options: { readonly cwd: string; readonly env: Record<string, string> },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let signalled = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (example.stop && !signalled && example.expect.test(output)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
