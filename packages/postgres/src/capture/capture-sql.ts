import { javaStringHashCode } from '@queuebox/core';

/**
 * The SQL of capture's session on the application's database. Every value is bound; the names
 * that end up in replication commands are validated by the config loader
 * (`^[a-z][a-z0-9_]{0,62}$`) and quoted there.
 */

/**
 * The reference's ownership lock key: Java's `String.hashCode()` of `queuebox_capture_<identity>`
 * widened to 64 bits (sign-extended), so a QueueBox 0.8.1 replica and this one exclude each other.
 */
export function captureLockKey(identity: string): string {
  return String(javaStringHashCode(`queuebox_capture_${identity}`));
}

export const captureSql = {
  backendPid: 'SELECT pg_backend_pid() AS pid',
  tryLock: 'SELECT pg_try_advisory_lock($1::bigint) AS held',
  unlock: 'SELECT pg_advisory_unlock($1::bigint) AS released',
  /** A bigint advisory lock shows in pg_locks as classid = high 32 bits, objid = low, objsubid 1. */
  lockHolder: `SELECT pid FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND classid::bigint = (($1::bigint >> 32) & 4294967295)
      AND objid::bigint = ($1::bigint & 4294967295)
    LIMIT 1`,
  terminate: 'SELECT pg_terminate_backend($1::int) AS ended',
  registration: `SELECT identity_name, state_id, config_fingerprint FROM queuebox_capture_state
    WHERE identity_name = $1`,
  register: `INSERT INTO queuebox_capture_state (identity_name, state_id, config_fingerprint)
    VALUES ($1, $2, $3) ON CONFLICT (identity_name) DO NOTHING`,
  walLevel: "SELECT current_setting('wal_level') AS level",
  publication: 'SELECT pubinsert, puballtables FROM pg_publication WHERE pubname = $1',
  publishesTable: `SELECT 1 FROM pg_publication_tables
    WHERE pubname = $1 AND schemaname = $2 AND tablename = $3`,
  /** pg_current_wal_lsn() fails on a standby, where capture cannot run anyway. */
  durableSlots: `SELECT slot_name, active,
      COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn), 0)::bigint AS retained
    FROM pg_replication_slots WHERE slot_name = $1 AND NOT temporary`,
} as const;
