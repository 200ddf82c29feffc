#!/usr/bin/env node
// The guarantee check (spec §18): every "Proved by" entry of the README names a test, as
// `path/to/file.test.ts › describe › ... › test title`, and that test must be in the vitest JSON
// report of the run and have passed. scripts/run-tests.mjs runs it after every run; it also runs
// alone on a saved report:
//   node scripts/guarantees.mjs --report results.json [--readme README.md] [--root dir]
//        [--partial [vitest filter ...]]
// The rules (docs/decisions.md, "Guarantees, written and proved"):
// - missing: the file is not in the report, or no test of it has that describe path and title;
// - failed: the test ran and failed;
// - skipped: the test did not run. Allowed only for an entry marked `(needs SQL Server)` whose
//   suite says why in its title (`(skipped: <reason>)`) and whose service
//   QUEUEBOX_TEST_REQUIRE does not name; no other service may be missing where the README's
//   promises are proved;
// - a partial run (file filters, as developers run) checks only the entries whose file ran or
//   whose path a filter selects, and with a test-name filter (-t) a skipped test was deselected.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The separator vitest's own output puts between describe titles (`›`, U+203A), padded. */
export const SEPARATOR = ' › ';

/**
 * The services whose suites may be skipped where a named test is proved: none runs here. Kafka
 * is not one: `pnpm kafka:start` runs a local broker, and CI requires it.
 */
export const SKIPPABLE = new Map([['sql server', 'sqlserver']]);

/** The title suffix of a suite skipped for a missing service (skipTitle of @queuebox/testing). */
const SKIP_SUFFIX = / \(skipped: [^]*\)$/;

/**
 * The "Proved by" entries of a README. A line starting with `Proved by:` (bold or not) opens a
 * list; each following `- ` item holds one test name in a code span, optionally followed by
 * `(needs SQL Server)`. The list ends at the first line that is no item.
 * Returns the entries and what could not be read, each with its line number.
 */
export function parseProvedBy(markdown) {
  const entries = [];
  const problems = [];
  const lines = markdown.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    if (!/^\s*(\*\*|__)?Proved by:?(\*\*|__)?:?\s*$/.test(lines[n])) continue;
    const opened = n + 1;
    let count = 0;
    while (n + 1 < lines.length && /^\s*[-*] /.test(lines[n + 1])) {
      n++;
      count++;
      const entry = parseEntry(lines[n].replace(/^\s*[-*] /, ''), n + 1);
      if (entry.problem)
        problems.push({ lineNumber: n + 1, line: lines[n], reason: entry.problem });
      else entries.push(entry);
    }
    if (count === 0)
      problems.push({ lineNumber: opened, line: lines[opened - 1], reason: 'names no test' });
  }
  return { entries, problems };
}

function parseEntry(item, lineNumber) {
  const span = /^(`+)\s?(.+?)\s?\1(.*)$/.exec(item.trim());
  if (!span) return { problem: 'is not a test name in backticks' };
  const [, , name, rest] = span;
  const parts = name.split(SEPARATOR).map((part) => part.trim());
  if (parts.length < 2 || parts.some((part) => part === ''))
    return { problem: `does not read as "file${SEPARATOR}describe${SEPARATOR}test"` };
  if (!/\.test\.[cm]?[jt]sx?$/.test(parts[0]))
    return { problem: `names no test file first (${parts[0]})` };
  let needs = null;
  const marker = /\(needs ([^)]+)\)/i.exec(rest);
  if (marker) {
    needs = SKIPPABLE.get(marker[1].trim().toLowerCase()) ?? null;
    if (!needs)
      return {
        problem: `marks "${marker[1]}" as skippable; only ${[...SKIPPABLE.keys()].join(' and ')} suites may be`,
      };
  }
  return { lineNumber, name, file: parts[0], titles: parts.slice(1), needs };
}

/** A path as the README writes it: relative to the repository root, with forward slashes. */
function repoPath(root, file) {
  const path = isAbsolute(file) ? relative(root, file) : file;
  return path.split(sep).join('/');
}

/**
 * Checks the entries against a vitest JSON report. `run.partial` says the run was given
 * arguments; `run.filters` are its positional arguments (vitest matches a file when its path
 * contains one); `run.nameFilter` says a test-name pattern deselected tests; `run.required` are
 * the services QUEUEBOX_TEST_REQUIRE names. Returns one failure per entry that does not hold, the
 * entries allowed to be skipped, and how many entries were checked.
 */
export function checkGuarantees(entries, report, run = {}) {
  const root = run.root ?? process.cwd();
  const required = new Set((run.required ?? []).map((s) => s.trim().toLowerCase()));
  const files = new Map();
  for (const file of report.testResults ?? []) files.set(repoPath(root, file.name), file);
  const failures = [];
  const allowedSkips = [];
  let checked = 0;
  for (const entry of entries) {
    const file = files.get(entry.file);
    const selected =
      !run.partial || file || (run.filters ?? []).some((f) => selects(f, entry.file));
    if (!selected) continue;
    checked++;
    const fail = (kind, reason) => failures.push({ entry, kind, reason });
    if (!file) {
      fail('missing', `the file ${entry.file} is not in the test report (renamed or removed?)`);
      continue;
    }
    const matches = (file.assertionResults ?? []).filter((test) => sameTest(test, entry.titles));
    if (matches.length === 0) {
      fail(
        'missing',
        file.status === 'failed' && (file.assertionResults ?? []).length === 0
          ? `its file failed to load: ${firstLine(file.message)}`
          : `${entry.file} has no test with this describe path and title`,
      );
      continue;
    }
    const statuses = new Set(matches.map((test) => test.status));
    if (statuses.has('failed')) {
      fail('failed', 'the test failed');
      continue;
    }
    if (statuses.size === 1 && statuses.has('passed')) continue;
    const skipped = matches.filter((test) => test.status !== 'passed');
    if (run.nameFilter) continue;
    const withReason = skipped.every((test) =>
      test.ancestorTitles.some((t) => SKIP_SUFFIX.test(t)),
    );
    if (entry.needs && withReason && !required.has(entry.needs)) {
      allowedSkips.push(entry);
      continue;
    }
    fail(
      'skipped',
      entry.needs && required.has(entry.needs)
        ? `the test did not run, though QUEUEBOX_TEST_REQUIRE names ${entry.needs}`
        : entry.needs
          ? 'the test did not run, and its suite gives no "(skipped: reason)"'
          : 'the test did not run (only a test marked "(needs SQL Server)" may be skipped)',
    );
  }
  return { checked, failures, allowedSkips };
}

function selects(filter, file) {
  const f = filter.split(sep).join('/').replace(/^\.\//, '');
  return f !== '' && file.includes(f);
}

function sameTest(test, titles) {
  const path = [...test.ancestorTitles.map((t) => t.replace(SKIP_SUFFIX, '')), test.title];
  return path.length === titles.length && path.every((t, i) => t === titles[i]);
}

function firstLine(text) {
  return String(text ?? '').split('\n')[0] || 'no message';
}

/** Reads the README and the report, checks them, and returns the text to print and the count. */
export function runGuaranteeCheck({ readme, report, ...run }) {
  const { entries, problems } = parseProvedBy(readFileSync(readme, 'utf8'));
  const result = checkGuarantees(entries, JSON.parse(readFileSync(report, 'utf8')), run);
  const inRoot = repoPath(run.root ?? process.cwd(), readme);
  const where = inRoot.startsWith('../') ? readme : inRoot;
  const lines = [];
  for (const problem of problems)
    lines.push(
      `${where}:${problem.lineNumber}: this "Proved by" line ${problem.reason}: ${problem.line.trim()}`,
    );
  for (const { entry, kind, reason } of result.failures)
    lines.push(`${where}:${entry.lineNumber}: ${kind}: ${entry.name}\n    ${reason}`);
  const failed = problems.length + result.failures.length;
  const skips = result.allowedSkips.length;
  const summary =
    `Guarantees: ${result.checked} of ${entries.length} named test(s) checked, ${failed} not proved` +
    (skips > 0 ? `, ${skips} skipped for a missing SQL Server` : '') +
    (run.partial ? ' (a partial run checks only the files it ran)' : '');
  return { failed, text: [...lines, summary].join('\n'), ...result, problems };
}

/** Splits vitest arguments into positional filters and whether a test-name filter is among them. */
export function describeRun(args) {
  const filters = [];
  let nameFilter = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-t' || arg === '--testNamePattern') {
      nameFilter = true;
      i++;
    } else if (arg.startsWith('--testNamePattern=') || /^-t./.test(arg)) nameFilter = true;
    else if (!arg.startsWith('-')) filters.push(arg);
  }
  return { partial: args.length > 0, filters, nameFilter };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const root = resolve(option('--root') ?? join(fileURLToPath(import.meta.url), '..', '..'));
  const partialAt = args.indexOf('--partial');
  const report = option('--report');
  if (!report) {
    console.error(
      'usage: guarantees.mjs --report results.json [--readme README.md] [--root dir] [--partial [filter ...]]',
    );
    process.exit(2);
  }
  const run =
    partialAt === -1
      ? { partial: false, filters: [], nameFilter: false }
      : { ...describeRun(args.slice(partialAt + 1)), partial: true };
  const { failed, text } = runGuaranteeCheck({
    readme: resolve(option('--readme') ?? join(root, 'README.md')),
    report: resolve(report),
    root,
    required: (process.env.QUEUEBOX_TEST_REQUIRE ?? '').split(',').filter(Boolean),
    ...run,
  });
  console.log(text);
  process.exit(failed === 0 ? 0 : 1);
}
