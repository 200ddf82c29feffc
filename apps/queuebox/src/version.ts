import { readFileSync } from 'node:fs';

/** The version QueueBox reports (root answer, info metric): the app package's own version. */
export const QUEUEBOX_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
