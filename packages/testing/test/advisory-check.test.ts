import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirsAfterEach } from '../src/suite-scope.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/check-advisories.mjs');

const check = (...manifests: string[]) =>
  spawnSync(process.execPath, [SCRIPT, ...manifests], { cwd: ROOT, encoding: 'utf8' });

/**
 * The offline advisory check of CI (scripts/check-advisories.mjs): a published range whose floor
 * an advisory affects fails it, naming the advisory; the repository's own manifests and its
 * installed production dependencies pass it.
 */
describe('the advisory check', () => {
  const tempDir = tempDirsAfterEach();

  function manifest(dependencies: Record<string, string>): string {
    const dir = tempDir('qb-advisories-');
    const path = join(dir, 'package.json');
    writeFileSync(path, JSON.stringify({ name: '@queuebox/example', dependencies }));
    return path;
  }

  it('fails a range that admits an affected version, naming the advisory and the fix', () => {
    const result = check(
      manifest({ 'js-yaml': '^4.1.0', valibot: '^1.1.0', amqplib: '^0.10.9', pg: '^8.0.0' }),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'dependencies.js-yaml "^4.1.0" admits 4.1.0: GHSA-mh29-5h37-fv8m',
    );
    expect(result.stderr).toContain(
      'dependencies.valibot "^1.1.0" admits 1.1.0: GHSA-vqpr-j7v3-hqw9',
    );
    expect(result.stderr).toContain('fixed in 1.2.0');
    expect(result.stderr).toContain(
      'dependencies.amqplib "^0.10.9" admits 0.10.9: GHSA-37f9-7m79-6866',
    );
    expect(result.stderr).toContain('fixed in 2.3.0');
    expect(result.stderr).not.toContain('pg');
  });

  it('passes ranges whose floor is a fixed version', () => {
    const result = check(manifest({ 'js-yaml': '^4.1.1', valibot: '^1.2.0', amqplib: '^2.3.0' }));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it("passes the repository's manifests and installed production dependencies", () => {
    const result = check();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('the installed production dependencies are clear');
  }, 60_000);
});
