/** Files of the repository that tests hold the code to: docs pages, compose files, references. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);

/** A file by its path from the repository's root. */
export const repoPath = (path: string): string => fileURLToPath(new URL(path, ROOT));

export const readRepo = (path: string): string => readFileSync(repoPath(path), 'utf8');

/** The one YAML block of a docs page (`docs/rabbitmq.md`). */
export function docsYaml(page: string): string {
  const doc = readRepo(page);
  const start = doc.indexOf('```yaml\n');
  expect(start).toBeGreaterThan(0);
  return doc.slice(start + '```yaml\n'.length, doc.indexOf('```', start + 8));
}
