import { migrationSet, type Migration } from '@queuebox/core';
import * as files from './files.js';

export type { Migration } from '@queuebox/core';

/**
 * The bundled PostgreSQL migration set, in version order (spec §3.5). Released files are never
 * edited: their checksums are recorded in the history. A new change is a new file.
 */
export const migrations: readonly Migration[] = migrationSet(files);
