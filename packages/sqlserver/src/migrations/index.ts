import { migrationSet, type Migration } from '@queuebox/core';
import * as files from './files.js';

export type { Migration } from '@queuebox/core';

/**
 * The bundled SQL Server migration set, in version order, with the version numbers and file names
 * of the PostgreSQL set (spec §3.5). Released files are never edited: their checksums are recorded
 * in the history. A new change is a new file, on both databases.
 */
export const migrations: readonly Migration[] = migrationSet(files);
