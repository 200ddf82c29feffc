/**
 * Two start guards that the app runs again at its own checkpoints (defence in depth), so the
 * texts live in one place: the migration guard of spec §3.6 and the admin guard of §11.6.
 */
import type { AdminConfig, ColumnMapping } from '@queuebox/core';
import { DEFAULT_INBOX_COLUMNS, DEFAULT_OUTBOX_COLUMNS } from '@queuebox/core';

interface SchemaNames {
  readonly outboxTableName: string;
  readonly inboxTableName: string;
  readonly columnMapping: ColumnMapping;
}

/** The keys that rename the default schema, in the order of spec §3.6; empty for the default schema. */
export function renamedSchemaKeys(database: SchemaNames): string[] {
  const renamed: string[] = [];
  if (database.outboxTableName !== 'outbox') renamed.push('database.outboxTableName');
  if (database.inboxTableName !== 'inbox') renamed.push('database.inboxTableName');
  const differs = (
    mapping: Readonly<Record<string, string>>,
    defaults: Readonly<Record<string, string>>,
  ): boolean => Object.entries(defaults).some(([key, column]) => mapping[key] !== column);
  if (differs(database.columnMapping.outbox, DEFAULT_OUTBOX_COLUMNS))
    renamed.push('database.columnMapping.outbox');
  if (differs(database.columnMapping.inbox, DEFAULT_INBOX_COLUMNS))
    renamed.push('database.columnMapping.inbox');
  return renamed;
}

/** Why the bundled migrations cannot run on a renamed schema; the `migrate` command uses it too. */
export function migrationGuardMessage(renamed: readonly string[]): string {
  return (
    `The bundled migrations create the default schema, so they cannot create the schema that ` +
    `${renamed.join(', ')} ${renamed.length === 1 ? 'describes' : 'describe'}. ` +
    `Set 'database.migrate' to false and apply your own schema.`
  );
}

export const ADMIN_GUARD_MESSAGE =
  "The admin routes are enabled with no authentication. Set 'admin.auth' to a bearer token, an API key, " +
  "or an HMAC signature. Set 'admin.insecure' to true only for a local test, or set 'admin.enabled' to false.";

/** The admin guard text when the admin routes would be open, else undefined. */
export function adminGuardProblem(admin: {
  readonly enabled: boolean;
  readonly insecure: boolean;
  readonly auth: AdminConfig['auth'] | object | undefined;
}): string | undefined {
  return admin.enabled && admin.auth === null && !admin.insecure ? ADMIN_GUARD_MESSAGE : undefined;
}
