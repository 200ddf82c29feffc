// What a packed tarball may hold, beside what publint checks: every source map carries the
// sources it names (inline `sourcesContent`) or names only files the tarball ships, and no
// build-time tool or test file is shipped. Used by check-packages.mjs on each packed package.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

/** Files that never ship: build-time tools (the config doc writer), tests, build state. */
const NEVER_SHIPPED = [
  [/^dist\/docs\//, 'a build-time documentation tool'],
  [/\.test\.(js|d\.ts|js\.map)$/, 'a test file'],
  [/\.tsbuildinfo$/, 'TypeScript build state'],
];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The problems of one tarball, each naming the file. */
export function tarballProblems(tarball) {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-tarball-'));
  try {
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', dir], { encoding: 'utf8' });
    if (untar.status !== 0) return [`cannot unpack ${tarball}: ${untar.stderr}`];
    const root = join(dir, 'package');
    const problems = [];
    for (const file of walk(root)) {
      const path = relative(root, file);
      for (const [pattern, what] of NEVER_SHIPPED)
        if (pattern.test(path)) problems.push(`${path} is ${what} and must not be shipped`);
      if (!path.endsWith('.map')) continue;
      const map = JSON.parse(readFileSync(file, 'utf8'));
      (map.sources ?? []).forEach((source, i) => {
        if (typeof map.sourcesContent?.[i] === 'string') return;
        const target = join(dirname(file), map.sourceRoot ?? '', source);
        if (!existsSync(target))
          problems.push(
            `${path} names ${source}, which is not shipped, and carries no sourcesContent`,
          );
      });
    }
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
