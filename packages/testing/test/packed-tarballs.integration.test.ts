import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Packed {
  readonly name: string;
  readonly dir: string;
  /** The unpacked tarball's `package/` folder. */
  readonly contents: string;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

interface SourceMap {
  readonly sources: string[];
  readonly sourcesContent?: (string | null)[];
}

/**
 * Every release-ready package packed as `pnpm publish` packs it (after `pnpm build`): its source
 * maps carry the TypeScript they map to, since `src/` is not shipped, and @queuebox/config ships
 * no documentation writer, while the workspace keeps the one `pnpm docs:config` runs.
 */
describe('the packed tarballs', () => {
  const out = mkdtempSync(join(tmpdir(), 'qb-tarballs-'));
  const packed: Packed[] = [];

  beforeAll(() => {
    const dirs = readdirSync(join(ROOT, 'packages'))
      .map((name) => join(ROOT, 'packages', name))
      .filter((dir) => existsSync(join(dir, 'package.json')));
    for (const dir of dirs) {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        private?: boolean;
      };
      if (manifest.private === true) continue;
      if (!existsSync(join(dir, 'dist', 'index.js')))
        throw new Error(`${manifest.name} has no dist/: run \`pnpm build\` first`);
      const pack = spawnSync('pnpm', ['pack', '--pack-destination', out], {
        cwd: dir,
        encoding: 'utf8',
      });
      const tarball = pack.stdout.trim().split('\n').pop() ?? '';
      if (pack.status !== 0 || !tarball.endsWith('.tgz'))
        throw new Error(`pnpm pack failed for ${manifest.name}: ${pack.stderr}`);
      const contents = join(out, manifest.name.replace('/', '+'));
      mkdirSync(contents, { recursive: true });
      const untar = spawnSync('tar', ['-xzf', tarball, '-C', contents], { encoding: 'utf8' });
      if (untar.status !== 0) throw new Error(`cannot unpack ${tarball}: ${untar.stderr}`);
      packed.push({ name: manifest.name, dir, contents: join(contents, 'package') });
    }
  }, 240_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('ships every source map with the sources it names, as they are in src/', () => {
    expect(packed.length).toBeGreaterThan(5);
    let maps = 0;
    for (const { name, dir, contents } of packed) {
      for (const file of walk(contents).filter((f) => f.endsWith('.js.map'))) {
        maps++;
        const map = JSON.parse(readFileSync(file, 'utf8')) as SourceMap;
        const where = `${name}: ${relative(contents, file)}`;
        expect(map.sources.length, where).toBeGreaterThan(0);
        map.sources.forEach((source, i) => {
          const original = join(dir, relative(contents, dirname(file)), source);
          expect(map.sourcesContent?.[i], where).toBe(readFileSync(original, 'utf8'));
        });
      }
    }
    expect(maps).toBeGreaterThan(50);
  });

  it('ships no documentation writer in @queuebox/config, and the workspace keeps it for docs:config', () => {
    const config = packed.find((p) => p.name === '@queuebox/config');
    expect(config).toBeDefined();
    const shipped = walk(config!.contents).map((f) => relative(config!.contents, f));
    expect(shipped).toContain('dist/index.js');
    expect(shipped.filter((f) => f.startsWith('dist/docs/') || f.startsWith('scripts/'))).toEqual(
      [],
    );
    expect(existsSync(join(config!.dir, 'scripts/write-docs.mjs'))).toBe(true);
  });
});
