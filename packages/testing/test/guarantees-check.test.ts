import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/guarantees.mjs');

interface Test {
  readonly ancestorTitles: string[];
  readonly title: string;
  readonly status: 'passed' | 'failed' | 'skipped' | 'todo';
}

const passed = (titles: string[]): Test => ({
  ancestorTitles: titles.slice(0, -1),
  title: titles.at(-1)!,
  status: 'passed',
});

const SKIPPED_SS =
  'outbox store contract: SQL Server, default tables (skipped: no sqlserver found)';

/** A vitest JSON report as the run writes it: absolute file names, tests with their titles. */
function report(root: string, files: Record<string, Test[]>, loadFailures: string[] = []) {
  return {
    testResults: [
      ...Object.entries(files).map(([file, tests]) => ({
        name: join(root, file),
        status: tests.some((t) => t.status === 'failed') ? 'failed' : 'passed',
        message: '',
        assertionResults: tests.map((t) => ({
          ...t,
          fullName: [...t.ancestorTitles, t.title].join(' '),
        })),
      })),
      ...loadFailures.map((file) => ({
        name: join(root, file),
        status: 'failed',
        message: 'SyntaxError: Unexpected token\n    at somewhere',
        assertionResults: [],
      })),
    ],
  };
}

const README = `# Product

## Guarantees

### G1. Something

Proved by:
- \`apps/a/test/one.test.ts › suite › proves the first thing\`
- \`apps/a/test/one.test.ts › suite › nested › proves the second thing\`
- \`packages/b/src/two.test.ts › other suite › proves a third thing, with no separator\`

**Proved by:**
- \`packages/ss/test/store.contract.test.ts › outbox store contract: SQL Server, default tables › claims\` (needs SQL Server)

## Next section
`;

/**
 * The guarantee check of `pnpm test` (scripts/guarantees.mjs), run as a program on a README and
 * a vitest JSON report planted here: every test a "Proved by" list names must be in the report
 * and have passed. A planted missing name, a failed test, a renamed file and a skipped test are
 * each caught and named with their README line; a test marked "(needs SQL Server)" may be skipped
 * only with its suite's printed reason; a partial run checks only what it selected.
 */
describe('the guarantee check of the test run', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function check(
    readme: string,
    files: Record<string, Test[]>,
    options: { partial?: string[]; env?: Record<string, string>; loadFailures?: string[] } = {},
  ) {
    const root = mkdtempSync(join(tmpdir(), 'qb-guarantees-'));
    roots.push(root);
    writeFileSync(join(root, 'README.md'), readme);
    writeFileSync(
      join(root, 'report.json'),
      JSON.stringify(report(root, files, options.loadFailures)),
    );
    const args = [SCRIPT, '--root', root, '--report', join(root, 'report.json')];
    if (options.partial) args.push('--partial', ...options.partial);
    const run = spawnSync(process.execPath, args, {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...options.env },
    });
    return { code: run.status, out: run.stdout + run.stderr };
  }

  const allPassing = (): Record<string, Test[]> => ({
    'apps/a/test/one.test.ts': [
      passed(['suite', 'proves the first thing']),
      passed(['suite', 'nested', 'proves the second thing']),
      passed(['suite', 'an unnamed test']),
    ],
    'packages/b/src/two.test.ts': [
      passed(['other suite', 'proves a third thing, with no separator']),
    ],
    'packages/ss/test/store.contract.test.ts': [
      passed(['outbox store contract: SQL Server, default tables', 'claims']),
    ],
  });

  it('passes when every named test passed, and says how many it checked', () => {
    const { code, out } = check(README, allPassing());
    expect(out).toContain('Guarantees: 4 of 4 named test(s) checked, 0 not proved');
    expect(code).toBe(0);
  });

  it('fails on a planted name no test has, naming the README line', () => {
    const planted = README.replace('proves the first thing', 'proves a thing nobody tests');
    const { code, out } = check(planted, allPassing());
    expect(code).toBe(1);
    expect(out).toContain(
      'README.md:8: missing: apps/a/test/one.test.ts › suite › proves a thing nobody tests',
    );
    expect(out).toContain('apps/a/test/one.test.ts has no test with this describe path and title');
    expect(out).toContain('1 not proved');
  });

  it('fails on a right title under the wrong describe path', () => {
    const planted = README.replace('suite › nested › proves', 'suite › proves');
    const { code, out } = check(planted, allPassing());
    expect(code).toBe(1);
    expect(out).toContain('README.md:9: missing:');
  });

  it('fails on a named test that failed', () => {
    const files = allPassing();
    files['packages/b/src/two.test.ts'] = [
      { ...passed(['other suite', 'proves a third thing, with no separator']), status: 'failed' },
    ];
    const { code, out } = check(README, files);
    expect(code).toBe(1);
    expect(out).toContain('README.md:10: failed: packages/b/src/two.test.ts › other suite');
  });

  it('fails on a renamed file: the name the README gives is not in the report', () => {
    const files = allPassing();
    files['apps/a/test/one-renamed.test.ts'] = files['apps/a/test/one.test.ts']!;
    delete files['apps/a/test/one.test.ts'];
    const { code, out } = check(README, files);
    expect(code).toBe(1);
    expect(out).toContain(
      'the file apps/a/test/one.test.ts is not in the test report (renamed or removed?)',
    );
    expect(out).toContain('2 not proved');
  });

  it('fails on a named test whose file failed to load, with the reason', () => {
    const files = allPassing();
    delete files['packages/b/src/two.test.ts'];
    const { code, out } = check(README, files, { loadFailures: ['packages/b/src/two.test.ts'] });
    expect(code).toBe(1);
    expect(out).toContain('its file failed to load: SyntaxError: Unexpected token');
  });

  it('fails on a skipped test that is not marked as needing SQL Server', () => {
    const files = allPassing();
    files['apps/a/test/one.test.ts']![0] = {
      ...passed(['suite (skipped: no postgres found)', 'proves the first thing']),
      status: 'skipped',
    };
    const { code, out } = check(README, files);
    expect(code).toBe(1);
    expect(out).toContain('README.md:8: skipped:');
    expect(out).toContain('only a test marked "(needs SQL Server)" may be skipped');
  });

  it('accepts a skipped SQL Server test with its printed reason, unless QUEUEBOX_TEST_REQUIRE names sqlserver', () => {
    const files = allPassing();
    files['packages/ss/test/store.contract.test.ts'] = [
      { ...passed([SKIPPED_SS, 'claims']), status: 'skipped' },
    ];
    const here = check(README, files);
    expect(here.out).toContain('0 not proved, 1 skipped for a missing SQL Server');
    expect(here.code).toBe(0);

    const required = check(README, files, { env: { QUEUEBOX_TEST_REQUIRE: 'postgres,sqlserver' } });
    expect(required.code).toBe(1);
    expect(required.out).toContain(
      'the test did not run, though QUEUEBOX_TEST_REQUIRE names sqlserver',
    );
  });

  it('refuses a skip without the printed reason, and a marker for any other service', () => {
    const files = allPassing();
    files['packages/ss/test/store.contract.test.ts'] = [
      {
        ...passed(['outbox store contract: SQL Server, default tables', 'claims']),
        status: 'skipped',
      },
    ];
    const bare = check(README, files);
    expect(bare.code).toBe(1);
    expect(bare.out).toContain('its suite gives no "(skipped: reason)"');

    for (const service of ['PostgreSQL', 'Kafka']) {
      const planted = README.replace(
        'proves the first thing`',
        `proves the first thing\` (needs ${service})`,
      );
      const other = check(planted, allPassing());
      expect(other.code).toBe(1);
      expect(other.out).toContain(
        `README.md:8: this "Proved by" line marks "${service}" as skippable; only sql server suites may be`,
      );
    }
  });

  it('fails on a "Proved by" line that names no test, or an entry that is no test name', () => {
    const planted = README.replace(
      '## Next section',
      'Proved by:\n\nSome text.\n\nProved by:\n- the first test, in words\n\n## Next section',
    );
    const { code, out } = check(planted, allPassing());
    expect(code).toBe(1);
    expect(out).toContain('this "Proved by" line names no test: Proved by:');
    expect(out).toContain('this "Proved by" line is not a test name in backticks');
  });

  it('in a partial run checks only the files that ran or that a filter selects', () => {
    const files = allPassing();
    delete files['packages/b/src/two.test.ts'];
    delete files['packages/ss/test/store.contract.test.ts'];
    const narrow = check(README, files, { partial: ['apps/a/test/one.test.ts'] });
    expect(narrow.out).toContain('Guarantees: 2 of 4 named test(s) checked, 0 not proved');
    expect(narrow.code).toBe(0);

    // A filter that selects a named file the run did not have: it was renamed.
    const renamed = check(README, files, { partial: ['apps/a', 'packages/b/'] });
    expect(renamed.code).toBe(1);
    expect(renamed.out).toContain('the file packages/b/src/two.test.ts is not in the test report');

    // A missing test in a file that ran is caught in a partial run too.
    const planted = README.replace('proves the first thing', 'proves nothing');
    expect(check(planted, files, { partial: ['apps/a/test/one.test.ts'] }).code).toBe(1);
  });

  it('in a run with a test-name filter takes a skipped named test as deselected', () => {
    const files = allPassing();
    files['apps/a/test/one.test.ts']![0] = {
      ...passed(['suite', 'proves the first thing']),
      status: 'skipped',
    };
    expect(check(README, files, { partial: ['-t', 'second'] }).code).toBe(0);
    expect(check(README, files, { partial: ['apps/a/test/one.test.ts'] }).code).toBe(1);
  });

  it("reads this repository's README: every entry parses and names a test file that exists", () => {
    const root = mkdtempSync(join(tmpdir(), 'qb-guarantees-'));
    roots.push(root);
    writeFileSync(join(root, 'report.json'), JSON.stringify({ testResults: [] }));
    const run = spawnSync(
      process.execPath,
      [SCRIPT, '--root', ROOT, '--report', join(root, 'report.json')],
      { encoding: 'utf8' },
    );
    // Every entry is missing from an empty report; none is a line the check cannot read.
    expect(run.stdout).not.toContain('this "Proved by" line');
    const named = [...run.stdout.matchAll(/: missing: ([^ ]+\.test\.ts) › /g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThanOrEqual(40);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('## Guarantees');
    for (const file of new Set(named)) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });
});
