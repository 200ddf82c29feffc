/** Another transaction on a connection of its own, holding a row while a contract case runs. */
import type postgres from 'postgres';

/** Locks the row with `lockSql` ($1 = id), runs `during`, then rolls back. */
export async function holdLock(
  sql: postgres.Sql,
  lockSql: string,
  id: string,
  during: () => Promise<void>,
): Promise<void> {
  const holder = await sql.reserve();
  try {
    await holder`BEGIN`;
    await holder.unsafe(lockSql, [id]);
    await during();
  } finally {
    await holder`ROLLBACK`.catch(() => undefined);
    holder.release();
  }
}

/** Runs `writeSql` without committing, runs `during`, then commits the write. */
export async function withUncommitted(
  sql: postgres.Sql,
  writeSql: string,
  parameters: string[],
  during: () => Promise<void>,
): Promise<void> {
  const writer = await sql.reserve();
  try {
    await writer`BEGIN`;
    await writer.unsafe(writeSql, parameters);
    try {
      await during();
    } catch (error: unknown) {
      await writer`ROLLBACK`.catch(() => undefined);
      throw error;
    }
    await writer`COMMIT`;
  } finally {
    writer.release();
  }
}
