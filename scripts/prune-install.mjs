#!/usr/bin/env node
// Removes from a production install (`scripts/deploy-app.sh <dir>`) what nothing loads at run
// time and what the image should not ship:
// - in third-party packages: source maps, type declarations, TypeScript sources (Node.js strips
//   types from no file under node_modules, so none of them can be loaded), test files and test
//   folders at a package's root;
// - in our own packages: the type declarations and their maps. Our own .js maps stay: they turn
//   a stack trace into src/ lines.
// Prints what it removed. `scripts/check-deployed-install.mjs` fails when any of it is back.
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A file no third-party package needs at run time. */
export const THIRD_PARTY_FILE =
  /(\.map|\.d\.[cm]?ts|(?<!\.d)\.[cm]?tsx?|\.(test|spec)\.[cm]?js)$|^(\.eslintrc.*|\.prettierrc.*|tsconfig(\..*)?\.json)$/;
/** Folders at a third-party package's root that hold its tests. */
export const THIRD_PARTY_TEST_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  '.github',
]);
/**
 * Files named like tests that are run-time code: kafkajs loads its retry defaults for tests
 * (`src/retry/defaults.test.js`) whenever NODE_ENV is `test`, as under vitest.
 */
export const RUNTIME_FILES = new Set(['kafkajs/src/retry/defaults.test.js']);
/** Our own packages keep their .js maps and lose their declarations. */
export const OWN_FILE = /\.d\.[cm]?ts(\.map)?$/;

/** Each package folder of a pnpm install: `.pnpm/<entry>/node_modules/<name>`, once. */
export function packageDirs(install) {
  const store = join(install, 'node_modules', '.pnpm');
  const dirs = [];
  for (const entry of readdirSync(store)) {
    if (entry === 'node_modules' || entry === 'lock.yaml') continue;
    const modules = join(store, entry, 'node_modules');
    for (const name of readdirSync(modules)) {
      const scoped = name.startsWith('@');
      for (const sub of scoped ? readdirSync(join(modules, name)) : ['']) {
        const dir = join(modules, name, sub);
        // The entry's own package is a folder; its dependencies are symlinks to other entries.
        if (lstatSync(dir).isDirectory())
          dirs.push({ dir, own: name === '@queuebox', name: scoped ? `${name}/${sub}` : name });
      }
    }
  }
  return dirs;
}

/** Removes the folders the pruning emptied (a `types/tests` of declarations only, say). */
function removeEmptyDirs(dir) {
  let empty = true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && removeEmptyDirs(join(dir, entry.name))) continue;
    empty = false;
  }
  if (empty) rmSync(dir, { recursive: true });
  return empty;
}

function walk(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, visit);
    else if (entry.isFile()) visit(path, entry.name);
  }
}

/** Finds (and with `remove`, deletes) what the image should not ship; returns the paths. */
export function prune(install, { remove }) {
  const found = [];
  const take = (path, options) => {
    found.push(path);
    if (remove) rmSync(path, options);
  };
  for (const { dir, own, name: packageName } of packageDirs(install)) {
    if (!own) {
      for (const name of readdirSync(dir)) {
        if (THIRD_PARTY_TEST_DIRS.has(name) && lstatSync(join(dir, name)).isDirectory())
          take(join(dir, name), { recursive: true, force: true });
      }
    }
    walk(dir, (path, name) => {
      if (RUNTIME_FILES.has(`${packageName}/${relative(dir, path)}`)) return;
      if (own ? OWN_FILE.test(name) : THIRD_PARTY_FILE.test(name)) take(path, { force: true });
    });
    if (remove) {
      for (const entry of readdirSync(dir, { withFileTypes: true }))
        if (entry.isDirectory()) removeEmptyDirs(join(dir, entry.name));
    }
  }
  // The app's own dist, at the install's root.
  walk(join(install, 'dist'), (path, name) => {
    if (OWN_FILE.test(name)) take(path, { force: true });
  });
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const install = process.argv[2] ?? 'deploy/app';
  const removed = prune(install, { remove: true });
  console.log(
    `Pruned ${removed.length} files and folders nothing loads at run time from ${install}.`,
  );
}
