/**
 * The pull's own SQL with no worker around it: one claim of `batch` rows at a time (never two
 * at once), then its completions spread over `connections` autocommit connections, until the
 * source is empty. No handler transaction (BEGIN/COMMIT), no renewals, no worker loop: what is
 * left is what the reference schema makes every pull worker pay per message, so its rate is the
 * ceiling of any worker that keeps the contract (one claim per batch, one committed completion
 * per message). The server's CPU is read around every claim and every round of completions, so
 * the two costs come apart.
 */
import { inboxSql } from '@queuebox/inbox';
import { connect } from '../lib/pg.mjs';
import { postmasterPid, serverCpuUs } from '../lib/server-cpu.mjs';
import { round } from '../lib/util.mjs';

const sqlText = inboxSql('postgresql');

export async function pullSqlCeiling(db, { source, connections, batch = 100, leaseMs = 30_000 }) {
  const sql = connect(db, { max: connections });
  const one = connect(db, { max: 1 });
  const candidates = Math.min(Math.max(3 * batch, 50), 500);
  try {
    const postmaster = await postmasterPid(one);
    let claimUs = 0;
    let completeUs = 0;
    let claimed = 0;
    let claims = 0;
    const start = performance.now();
    for (;;) {
      const t0 = serverCpuUs(postmaster);
      const rows = await one.unsafe(sqlText.claim.text, [source, batch, leaseMs, candidates], {
        prepare: true,
      });
      const t1 = serverCpuUs(postmaster);
      claimUs += t1 - t0;
      claims += 1;
      if (rows.length === 0) break;
      claimed += rows.length;
      await Promise.all(
        rows.map((r) => sql.unsafe(sqlText.complete.text, [r.id, r.claim_token], { prepare: true })),
      );
      completeUs += serverCpuUs(postmaster) - t1;
    }
    const seconds = (performance.now() - start) / 1000;
    return {
      rows: claimed,
      claims,
      seconds: round(seconds, 2),
      completedPerSecond: round(claimed / seconds, 0),
      claimServerCpuUsPerRow: postmaster === null ? null : round(claimUs / claimed, 1),
      completeServerCpuUsPerRow: postmaster === null ? null : round(completeUs / claimed, 1),
    };
  } finally {
    await one.end({ timeout: 5 });
    await sql.end({ timeout: 5 });
  }
}
