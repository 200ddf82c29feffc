import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The demo configuration packaged with the app (spec §12.1, third source). The build copies
 * `docker/queuebox.yml` next to `dist/main.js`; when running from sources (tests), the repository
 * copy is read instead. There is one file, so the image and the repository cannot drift.
 */
const CANDIDATES = ['../queuebox.yml', '../../../../docker/queuebox.yml'];

export function readDemoConfig(): string | undefined {
  const path = demoConfigPath();
  return path === undefined ? undefined : readFileSync(path, 'utf8');
}

/** Where the demo configuration file is (`queuebox dev` names it as its configuration file). */
export function demoConfigPath(): string | undefined {
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}
