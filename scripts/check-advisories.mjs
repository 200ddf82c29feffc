#!/usr/bin/env node
// The advisory check on the production dependencies. `pnpm audit` needs the registry's audit
// endpoint, which does not answer from this network (405), and neither npm nor Debian ships an
// advisory database that works offline (the npm OSV packages download theirs at run time), so
// the advisories that touch our production dependencies are listed in scripts/advisories.json
// and checked here, without the network:
//   1. every version installed as a production dependency of a workspace package (the lockfile's
//      resolution, as `pnpm list --prod` reports it) is outside every affected range;
//   2. every published range's floor (`^4.1.1` -> 4.1.1) is too, so no consumer can resolve an
//      affected version through our manifests.
// With manifest paths as arguments it checks only those manifests' floors (for tests).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { advisories } = JSON.parse(readFileSync(join(root, 'scripts/advisories.json'), 'utf8'));

/** `1.2.3` (a pre-release or build suffix ignored) as three numbers, or null. */
function parse(version) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match === null ? null : match.slice(1, 4).map(Number);
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The advisories whose ranges hold this version of this package. */
function affecting(name, version) {
  const v = parse(version);
  if (v === null) return [];
  return advisories.filter(
    (advisory) =>
      advisory.package === name &&
      advisory.ranges.some(
        (r) => compare(v, parse(r.introduced)) >= 0 && compare(v, parse(r.fixed)) < 0,
      ),
  );
}

/** The lowest version a range admits: `^1.2.3`, `~1.2.3`, `>=1.2.3`, `1.2.3`; null otherwise. */
function floorOf(range) {
  if (range.startsWith('workspace:') || range.includes('||')) return null;
  const match = /^(?:\^|~|>=|=)?\s*v?(\d+\.\d+\.\d+)/.exec(range.trim());
  return match === null ? null : match[1];
}

const describe = (advisory) => {
  const fixed = advisory.ranges.map((r) => r.fixed).join(' / ');
  return `${advisory.id} (${advisory.summary}; fixed in ${fixed})`;
};

function manifestProblems(path) {
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  const problems = [];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      const floor = floorOf(range);
      if (floor === null) continue;
      for (const advisory of affecting(name, floor))
        problems.push(
          `${manifest.name}: ${field}.${name} "${range}" admits ${floor}: ${describe(advisory)}`,
        );
    }
  }
  return problems;
}

function workspaceManifests() {
  return ['packages', 'apps']
    .flatMap((parent) => readdirSync(join(root, parent)).map((name) => join(root, parent, name)))
    .map((dir) => join(dir, 'package.json'))
    .filter((path) => existsSync(path));
}

function installedProblems() {
  const list = spawnSync(
    'pnpm',
    ['list', '-r', '--prod', '--depth', 'Infinity', '--parseable', '--long'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 },
  );
  if (list.status !== 0) return [`pnpm list failed:\n${list.stdout}${list.stderr}`];
  const problems = new Set();
  for (const line of list.stdout.split('\n')) {
    // `<path>:<name>@<version>`; a workspace link or the root says no version.
    const id = line.slice(line.lastIndexOf(':') + 1);
    const at = id.lastIndexOf('@');
    if (at <= 0 || id.startsWith('link')) continue;
    const name = id.slice(0, at);
    for (const advisory of affecting(name, id.slice(at + 1)))
      problems.add(`installed ${name}@${id.slice(at + 1)}: ${describe(advisory)}`);
  }
  return [...problems];
}

const given = process.argv.slice(2);
const manifests = given.length > 0 ? given : workspaceManifests();
const problems = manifests.flatMap(manifestProblems);
if (given.length === 0) problems.push(...installedProblems());
if (problems.length > 0) {
  console.error(
    `The advisory check found ${problems.length} problem(s):\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(
  `advisory check: ${manifests.length} manifest(s)${given.length === 0 ? ' and the installed production dependencies' : ''} are clear of ${advisories.length} listed advisories.`,
);
