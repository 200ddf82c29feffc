#!/usr/bin/env node
/**
 * Counts the hand-written validation of @queuebox/config, so the figure in docs/decisions.md can
 * be checked: `node packages/config/scripts/count-validation-lines.mjs [commit]`. Without a
 * commit it counts the working tree. "total" is `wc -l`; "code" leaves out blank lines and lines
 * that are only comment (`//`, `/*`, `*`, `*\/`). Before valibot (commit c3cb37a) the validation
 * was the walker's files; since then it is the schema (without its compile-time type check),
 * the rules across keys, the issue wording, the plain tree and the problem collector.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const OLD = /^(schema-[a-z-]+|schema|validate-[a-z-]+|problems)\.ts$/;
const NEW = /^(schema\/.+|rules\/[^/]+|issues|plain-tree|problems)\.ts$/;
const SKIP = /(\.test\.ts|^schema\/matches-app-config\.ts)$/;

const commit = process.argv[2];
const git = (...args) => execFileSync('git', ['-C', REPO, ...args], { encoding: 'utf8' });

function files() {
  if (commit !== undefined) {
    return git('ls-tree', '-r', '--name-only', commit, 'packages/config/src/')
      .split('\n')
      .filter(Boolean)
      .map((path) => ({
        name: path.slice('packages/config/src/'.length),
        read: () => git('show', `${commit}:${path}`),
      }));
  }
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  return walk(SRC).map((path) => ({
    name: relative(SRC, path),
    read: () => readFileSync(path, 'utf8'),
  }));
}

const all = files();
const isNew = all.some((file) => file.name.startsWith('schema/'));
const chosen = all
  .filter((file) => (isNew ? NEW : OLD).test(file.name) && !SKIP.test(file.name))
  .sort((a, b) => a.name.localeCompare(b.name));

let total = 0;
let code = 0;
for (const file of chosen) {
  const lines = file.read().split('\n');
  if (lines.at(-1) === '') lines.pop();
  const kept = lines.filter((line) => {
    const trimmed = line.trim();
    return trimmed !== '' && !/^(\/\/|\/\*|\*)/.test(trimmed);
  }).length;
  total += lines.length;
  code += kept;
  console.log(`${String(lines.length).padStart(5)} ${String(kept).padStart(5)}  ${file.name}`);
}
console.log(
  `${String(total).padStart(5)} ${String(code).padStart(5)}  total (lines, code lines) in ${chosen.length} files of ${commit ?? 'the working tree'}`,
);
