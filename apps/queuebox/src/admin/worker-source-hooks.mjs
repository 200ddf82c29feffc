// Module hooks for a worker process started from the workspace sources (see
// worker-source-register.mjs): workspace packages resolve to src through the `@queuebox/source`
// condition, a `./x.js` import of a TypeScript file finds `./x.ts`, and `.ts` files are loaded
// with their types stripped by the TypeScript compiler, one file at a time (the sources are
// written for isolatedModules). The output is cached by content in the temp directory: each
// kill forks a new worker, and stripping its two dozen files took seconds on a busy machine.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_CONDITION = '@queuebox/source';
const CACHE = join(tmpdir(), 'queuebox-source-worker');

let compiler;

export async function resolve(specifier, context, nextResolve) {
  const conditions = [...new Set([SOURCE_CONDITION, ...context.conditions])];
  try {
    return await nextResolve(specifier, { ...context, conditions });
  } catch (error) {
    const fromSource = context.parentURL?.endsWith('.ts') === true;
    if (fromSource && specifier.startsWith('.') && specifier.endsWith('.js')) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, { ...context, conditions });
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const text = await readFile(path, 'utf8');
  const cached = join(
    CACHE,
    `${createHash('sha256').update(path).update('\0').update(text).digest('hex')}.js`,
  );
  let source;
  try {
    source = await readFile(cached, 'utf8');
  } catch {
    source = await strip(path, text);
    await mkdir(CACHE, { recursive: true });
    // Written aside and renamed: two workers starting at once never read half a file.
    const partial = `${cached}.${process.pid}.tmp`;
    await writeFile(partial, source);
    await rename(partial, cached);
  }
  return { format: 'module', source, shortCircuit: true };
}

async function strip(path, text) {
  // Only a worker started from the workspace sources loads this file, and that checkout has the
  // compiler; the built service's worker runs dist/ and never reaches this import.
  // eslint-disable-next-line import-x/no-extraneous-dependencies
  compiler ??= (await import('typescript')).default;
  return compiler.transpileModule(text, {
    fileName: path,
    compilerOptions: {
      module: compiler.ModuleKind.ESNext,
      target: compiler.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
    },
  }).outputText;
}
