#!/usr/bin/env node
/**
 * Bundles the app's entry points (`dist/main.js`, `dist/check-providers.js`) with the workspace
 * packages and the libraries of the start path, so a start reads about 40 files instead of about
 * 330 modules. It runs after `tsc`, whose output stays beside the bundle: the package's export
 * and declarations, and the transform test's worker, which runs in a process of its own.
 *
 * - Every `import()` stays a split point: a provider that the configuration does not name is a
 *   chunk that never loads.
 * - Bundled besides the workspace: the start path's libraries (BUNDLED, and REQUIRED, whose files
 *   the start path takes with `createRequire`).
 * - Every other third-party package stays external and loads from node_modules: postgres.js (the
 *   driver check reads the installed copy), the broker and SQL Server clients (amqplib is patched
 *   in place, which a bundled copy would escape), jsonata and OpenTelemetry (loaded on demand).
 *   An external import must resolve from the app's own directory, so the build fails unless the
 *   app declares each one with the range of the workspace package that imports it.
 * - `import.meta.url` of a bundled module is rewritten to the URL of the file `tsc` compiled it
 *   to (the app's `dist/`, or the workspace package's `dist/` as the app resolves it), so files
 *   read beside a module, and `createRequire`, behave as they did unbundled.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RolldownMagicString, build } from 'rolldown';

const APP = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(APP, '..', '..');
const DIST = join(APP, 'dist');
const manifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const app = manifest(APP);

/**
 * Bundled with what they import. pino is CommonJS; its transports (worker threads that load
 * files by path) would not work from the bundle, and QueueBox uses none.
 */
const BUNDLED = new Set(['valibot', 'js-yaml', 'hono', '@hono/node-server', 'pino']);
/** CommonJS packages whose files the start path requires with `createRequire`: bundled too. */
const REQUIRED = new Set(['undici', 'prom-client']);
/** Workspace packages that are development tools: the production install has none of them. */
const DEV_ONLY = new Set(['@queuebox/dev', '@queuebox/testing']);
const BUILTINS = new Set(builtinModules);

const packageNameOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isBare = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');

/** The workspace package directory a file is in, or undefined for the app and node_modules. */
function workspacePackageOf(file) {
  const rel = relative(join(ROOT, 'packages'), file);
  if (rel.startsWith('..') || rel.split(sep).includes('node_modules')) return undefined;
  return join(ROOT, 'packages', rel.split(sep)[0]);
}

/** `src/a/b.ts` → `dist/a/b.js`, where `tsc` compiled it. */
const compiledPath = (pkgDir, file) =>
  join(pkgDir, 'dist', relative(join(pkgDir, 'src'), file)).replace(/\.ts$/, '.js');

/** The expression that stands for `import.meta.url` in the bundled copy of `file`. */
function metaUrlOf(file) {
  if (!file.endsWith('.ts')) return undefined;
  if (!relative(APP, file).startsWith('..')) {
    const rel = relative(DIST, compiledPath(APP, file)).split(sep).join('/');
    return `new URL(${JSON.stringify(`./${rel}`)}, import.meta.url).href`;
  }
  const pkgDir = workspacePackageOf(file);
  if (pkgDir === undefined) return undefined;
  const { name, exports } = manifest(pkgDir);
  const entry = join(pkgDir, exports['.'].default);
  const rel = relative(dirname(entry), compiledPath(pkgDir, file)).split(sep).join('/');
  return `new URL(${JSON.stringify(`./${rel}`)}, import.meta.resolve(${JSON.stringify(name)})).href`;
}

const externals = new Map();

/**
 * The source rewrites the bundle needs (see the top of this file), with their source maps:
 * - `import.meta.url` → the URL of the module's compiled file;
 * - `const load = createRequire(import.meta.url)` used only as `load('undici/lib/…')` → plain
 *   `require` calls of a REQUIRED package, which the bundler follows;
 * - `import('@queuebox/<provider>')` → the same chunk, after `import.meta.resolve` of the package:
 *   a provider whose package is not in the install fails to load, naming the package, as it
 *   did unbundled (providers.ts), although its code is in the bundle.
 */
const rewrites = {
  name: 'queuebox-rewrites',
  transform(code, id) {
    const replacement = metaUrlOf(id);
    if (replacement === undefined) return null;
    const s = new RolldownMagicString(code);
    for (const declaration of code.matchAll(
      /const (\w+) = createRequire\(import\.meta\.url\);\n/g,
    )) {
      const name = declaration[1];
      const uses = [...code.matchAll(new RegExp(`\\b${name}\\b`, 'g'))].length - 1;
      const calls = [...code.matchAll(new RegExp(`\\b${name}\\((['"])([^'"]+)\\1\\)`, 'g'))];
      if (calls.length !== uses || !calls.every((call) => REQUIRED.has(packageNameOf(call[2]))))
        continue;
      s.remove(declaration.index, declaration.index + declaration[0].length);
      for (const call of calls) s.overwrite(call.index, call.index + name.length, 'require');
    }
    for (const call of code.matchAll(/\bimport\((['"])(@queuebox\/[^'"]+)\1\)/g)) {
      if (DEV_ONLY.has(packageNameOf(call[2]))) continue;
      s.prependLeft(call.index, `(import.meta.resolve(${call[1]}${call[2]}${call[1]}), `);
      s.appendRight(call.index + call[0].length, ')');
    }
    if (!s.hasChanged() && !code.includes('import.meta.url')) return null;
    s.replaceAll('import.meta.url', replacement);
    return { code: s.toString(), map: s.generateMap({ hires: true, source: id }) };
  },
};

/** Fails the build when an external import would not resolve from the app's directory. */
function checkExternals() {
  const problems = [];
  for (const [name, importers] of externals) {
    const declared = app.dependencies?.[name];
    for (const importer of importers) {
      const pkgDir = workspacePackageOf(importer);
      const wanted = pkgDir === undefined ? declared : manifest(pkgDir).dependencies?.[name];
      if (declared === undefined)
        problems.push(
          `${name} (imported by ${relative(ROOT, importer)}) is not a dependency of ${app.name}`,
        );
      else if (wanted !== undefined && wanted !== declared)
        problems.push(
          `${name}: ${app.name} declares ${declared}, ${relative(ROOT, importer)} wants ${wanted}`,
        );
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `External imports of the bundle the app cannot resolve:\n  ${problems.join('\n  ')}`,
    );
  }
}

await build({
  cwd: APP,
  input: { main: 'src/main.ts', 'check-providers': 'src/check-providers.ts' },
  platform: 'node',
  logLevel: 'warn',
  resolve: {
    conditionNames: ['@queuebox/source', 'import', 'node', 'default'],
    extensionAlias: { '.js': ['.ts', '.js'] },
  },
  external(id, importer) {
    if (!isBare(id)) return false;
    if (id.startsWith('node:') || BUILTINS.has(id)) return true;
    // What a bundled third-party package imports is bundled with it.
    if (importer?.split(sep).includes('node_modules')) return false;
    const name = packageNameOf(id);
    if (REQUIRED.has(name)) return false;
    if (DEV_ONLY.has(name)) return true;
    if (name.startsWith('@queuebox/') || BUNDLED.has(name)) return false;
    if (importer !== undefined)
      externals.set(name, new Set([...(externals.get(name) ?? []), importer]));
    return true;
  },
  plugins: [rewrites],
  output: {
    dir: DIST,
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  },
});
checkExternals();
