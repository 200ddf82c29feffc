/**
 * A sampling profile of the database side (pg_stat_statements is not loaded on this server, and
 * loading it needs a restart of the shared server, which the bench must not do): every `everyMs`
 * it reads pg_stat_activity for the scenario's database and counts, per statement kind, the
 * backends that are `active` (running a statement) and what they wait on. Averaged over a window,
 * "busy backends" of a statement = how many backends were executing it on average, i.e. its share
 * of database time. It also feeds the CPU sampler the pids of the database's backends.
 */
import { connect } from './pg.mjs';
import { now } from './util.mjs';

const LABELS = [
  [/UPDATE\s+"outbox"\s+AS\s+claimed/i, 'outbox claim (UPDATE … FOR UPDATE SKIP LOCKED)'],
  [
    /UPDATE\s+"outbox"\s+AS\s+target\s+SET\s+"state"\s*=\s*CASE/i,
    'outbox completion batch (fenced UPDATE … unnest)',
  ],
  [/SET\s+"lease_expires_at"\s*=\s*clock_timestamp/i, 'outbox lease renewal'],
  [/pg_advisory_xact_lock/i, 'inbox relay claim lock'],
  [
    /WITH\s+candidates\s+AS\s*\(\s*--\s*A bounded prefix of the due push rows/i,
    'inbox relay claim',
  ],
  [
    /\bbatch\s+AS\s*\(\s*SELECT\s+(?:f\.)?\*\s+FROM\s+(?:relaxed\s*,\s*)?unnest/i,
    'inbox relay forward (fenced UPDATE inbox + INSERT outbox)',
  ],
  [/INSERT\s+INTO\s+"inbox".*ON\s+CONFLICT/is, 'inbox INSERT … ON CONFLICT DO NOTHING'],
  [/SET\s+LOCAL\s+synchronous_commit/i, 'SET LOCAL synchronous_commit'],
  [/INSERT\s+INTO\s+"inbox"/i, 'inbox INSERT'],
  [/UPDATE\s+"inbox"/i, 'inbox UPDATE'],
  [
    /graphile_worker\.get_job|_private_jobs.*for update|^\s*with j as \(\s*select jobs\.job_queue_id/is,
    'graphile-worker get_job (select and lock a job)',
  ],
  [/graphile_worker\.complete_job|delete from.*_private_jobs/is, 'graphile-worker complete_jobs'],
  [/pgboss\.job.*FOR UPDATE|SKIP LOCKED/is, 'pg-boss fetch'],
  [/pgboss\.job.*completed/is, 'pg-boss complete'],
  [/^\s*(COMMIT|BEGIN|ROLLBACK)/i, 'BEGIN/COMMIT'],
];

function labelOf(query) {
  for (const [pattern, label] of LABELS) if (pattern.test(query)) return label;
  return query.replace(/\s+/g, ' ').trim().slice(0, 70);
}

export function startActivitySampler({ database, everyMs = 50 }) {
  const sql = connect('postgres', { max: 1 });
  const backendPids = new Set();
  const samples = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = now();
      try {
        const rows =
          await sql`select pid, state, wait_event_type, wait_event, left(query, 400) as query
          from pg_stat_activity
          where datname = ${database} and pid <> pg_backend_pid() and backend_type = 'client backend'`;
        const active = [];
        for (const row of rows) {
          backendPids.add(row.pid);
          if (row.state === 'active' || row.state === 'idle in transaction') {
            active.push({
              label: row.state === 'active' ? labelOf(row.query) : '(idle in transaction)',
              wait:
                row.state === 'active'
                  ? row.wait_event_type
                    ? `${row.wait_event_type}:${row.wait_event}`
                    : 'CPU'
                  : 'ClientRead',
            });
          }
        }
        samples.push({ t, connections: rows.length, active });
      } catch {
        // the database may be gone between scenarios
      }
      const spent = now() - t;
      await new Promise((r) => setTimeout(r, Math.max(1, everyMs - spent)));
    }
  })();
  return {
    backendPids: () => backendPids,
    window(t0, t1) {
      const picked = samples.filter((s) => s.t >= t0 && s.t <= t1);
      if (picked.length === 0) return null;
      const byLabel = new Map();
      const byWait = new Map();
      let connections = 0;
      for (const s of picked) {
        connections += s.connections;
        for (const a of s.active) {
          byLabel.set(a.label, (byLabel.get(a.label) ?? 0) + 1);
          byWait.set(a.wait, (byWait.get(a.wait) ?? 0) + 1);
        }
      }
      const n = picked.length;
      const rank = (m) =>
        Object.fromEntries(
          [...m.entries()]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 10)
            .map(([k, v]) => [k, Math.round((v / n) * 1000) / 1000]),
        );
      const busy = [...byLabel.values()].reduce((a, b) => a + b, 0) / n;
      return {
        samples: n,
        everyMs,
        avgConnections: Math.round((connections / n) * 10) / 10,
        avgBusyBackends: Math.round(busy * 1000) / 1000,
        busyBackendsByStatement: rank(byLabel),
        busyBackendsByWait: rank(byWait),
      };
    },
    async stop() {
      running = false;
      await loop;
      await sql.end();
    },
  };
}
