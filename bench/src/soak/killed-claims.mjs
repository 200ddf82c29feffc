/**
 * Which `processing` rows a replica killed with SIGKILL held. The outbox records no owner, so:
 * right after the kill the soak reads every `processing` row (id, claim token, lease end) from
 * the table, then watches those rows. A live replica renews its leases every claimTimeoutMs/3
 * and finishes its rows, so each of its rows changes (a later lease under the same token, or
 * another state) while the DB clock is still before the lease end read at the kill. A row of
 * the dead replica cannot change before its lease runs out; the reclaim step then returns it
 * to `pending` (keeping the token). So: a row that changed before its lease end was a live
 * replica's; one that did not was the killed replica's, and only those may be delivered twice.
 */
import { sleep } from '../lib/util.mjs';

export async function readProcessing(sql) {
  const outbox = await sql`SELECT id::text AS id, claim_token::text AS token, lease_expires_at AS lease
    FROM outbox WHERE state = 'processing'`;
  const [inbox] = await sql`SELECT count(*)::int AS n FROM inbox WHERE state = 'processing'`;
  return { outbox, inboxProcessing: inbox.n };
}

/** Resolves with the ids of the rows the killed replica held, once every lease has run out. */
export async function attributeKilledClaims(sql, snapshot, { timeoutMs = 60_000 } = {}) {
  const open = new Map(snapshot.map((row) => [row.id, row]));
  const killed = [];
  const deadline = Date.now() + timeoutMs;
  while (open.size > 0 && Date.now() < deadline) {
    let rows;
    let dbNow;
    try {
      rows = await sql`SELECT id::text AS id, state, claim_token::text AS token, lease_expires_at AS lease
        FROM outbox WHERE id = ANY(${[...open.keys()]}::uuid[])`;
      [{ dbNow }] = await sql`SELECT clock_timestamp() AS "dbNow"`;
    } catch {
      await sleep(200);
      continue;
    }
    const current = new Map(rows.map((row) => [row.id, row]));
    for (const [id, before] of open) {
      const now = current.get(id);
      const unchanged =
        now !== undefined &&
        now.state === 'processing' &&
        now.token === before.token &&
        now.lease?.getTime() === before.lease?.getTime();
      if (!unchanged) {
        // Changed: by its live owner only while the lease read at the kill still held.
        if (before.lease === null || dbNow.getTime() >= before.lease.getTime()) killed.push(id);
        open.delete(id);
      } else if (dbNow.getTime() > before.lease.getTime() + 1000) {
        // Past its lease and still untouched: nobody renewed it, so nobody alive held it.
        killed.push(id);
        open.delete(id);
      }
    }
    await sleep(100);
  }
  return { killed, undecided: [...open.keys()] };
}
