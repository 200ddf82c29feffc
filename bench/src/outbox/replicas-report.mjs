/** The replica scenarios' comparison: per backlog size, 2 and 4 replicas against 1, and targets. */
import { sizeLabel } from '../lib/args.mjs';
import { fmtInt, fmtRatio, section, table } from '../lib/report.mjs';
import { ratio as div, round } from '../lib/util.mjs';
import { REPLICA_COUNTS, replicaId } from './replicas.mjs';
import { LIMIT_PROCESS_COUNTS, replicaLimitId } from './replica-limit.mjs';

/** Four replicas deliver at least this share of what one does (no collapse under contention). */
export const REPLICA_TARGET = 0.9;

const rateOf = (s) => s?.figures?.messagesPerSecond ?? null;

/** Per size with any replica scenario run: the scenarios by count and the ratios to one. */
export function replicaComparisons(scenarios, sizeList) {
  return sizeList
    .map((rows) => {
      const size = sizeLabel(rows);
      const runs = Object.fromEntries(
        REPLICA_COUNTS.map((n) => [
          n,
          scenarios.find((s) => s.id === replicaId(n, size) && !s.error) ?? null,
        ]),
      );
      const limits = Object.fromEntries(
        LIMIT_PROCESS_COUNTS.map((n) => [
          n,
          scenarios.find((s) => s.id === replicaLimitId(n, size) && !s.error) ?? null,
        ]),
      );
      const one = rateOf(runs[1]);
      return {
        rows,
        size,
        runs,
        limits,
        ratios: {
          twoToOne: div(rateOf(runs[2]), one),
          fourToOne: div(rateOf(runs[4]), one),
          limitFourToOne: div(rateOf(limits[4]), rateOf(limits[1])),
        },
      };
    })
    .filter((x) => [...REPLICA_COUNTS, ...LIMIT_PROCESS_COUNTS].some((n) => x.runs[n] || x.limits[n]));
}

export function replicaRatios(comparisons) {
  const ratios = {};
  for (const x of comparisons) {
    ratios[`${x.size}: 2 replicas / 1 replica (1,000 keys)`] = x.ratios.twoToOne;
    ratios[`${x.size}: 4 replicas / 1 replica (1,000 keys)`] = x.ratios.fourToOne;
    ratios[`${x.size}: the plain client from 4 processes / from 1 (no database; the machine's bound)`] =
      x.ratios.limitFourToOne;
  }
  return ratios;
}

export function replicaTargets(comparisons) {
  return comparisons.flatMap((x) => {
    const four = x.ratios.fourToOne;
    const ran = REPLICA_COUNTS.map((n) => x.runs[n]).filter(Boolean);
    const violations = ran.reduce((a, s) => a + s.figures.orderViolations, 0);
    return [
      {
        target: `${x.size}: 4 replicas deliver ≥ ${REPLICA_TARGET} × 1 replica (no collapse under contention)`,
        value: four,
        met: four === null ? null : four >= REPLICA_TARGET,
      },
      {
        target: `${x.size}: replicas (${ran.map((s) => s.replicas).join(', ')}): per-key order violations = 0, all delivered`,
        value: violations,
        met: ran.length
          ? violations === 0 && ran.every((s) => s.figures.delivered === s.rows)
          : null,
      },
    ];
  });
}

/** The replicas' mean of a per-replica mean, weighted by what each sent. */
const meanOf = (list, field) => {
  const known = (list ?? []).filter((r) => r[field] !== null && r.sent > 0);
  const sent = known.reduce((a, r) => a + r.sent, 0);
  return sent ? round(known.reduce((a, r) => a + r[field] * r.sent, 0) / sent, 1) : '—';
};

const cpuOfReplicas = (s) =>
  s?.byReplica?.map((r) => r.cpuPercentOfOneCore ?? '—').join('/') ?? '—';

export function printReplicas(comparisons) {
  if (comparisons.length === 0) return;
  section('replicas: 1, 2 and 4 QueueBox processes on one backlog with 1,000 keys');
  const cell = (x, f) => REPLICA_COUNTS.map((n) => (x.runs[n] ? f(x.runs[n]) : '—')).join(' / ');
  console.log(
    table(
      [
        'rows',
        'msg/s 1 / 2 / 4',
        '2/1',
        `4/1 (target ≥ ${REPLICA_TARGET})`,
        'plain client msg/s 1 / 4 processes',
        'plain 4/1',
        'order viol. 1 / 2 / 4',
        'dup 1 / 2 / 4',
        'sent per replica (2 | 4)',
        'CPU% per replica (2 | 4)',
        'CPU% pg 1 / 2 / 4',
        'rows per claim / completion 1 | 2 | 4',
        'in hand p50 ms 1 / 2 / 4',
        'publish mean ms 1 / 2 / 4',
      ],
      comparisons.map((x) => [
        fmtInt(x.rows),
        cell(x, (s) => fmtInt(rateOf(s))),
        fmtRatio(x.ratios.twoToOne),
        fmtRatio(x.ratios.fourToOne),
        LIMIT_PROCESS_COUNTS.map((n) => (x.limits[n] ? fmtInt(rateOf(x.limits[n])) : '—')).join(' / '),
        fmtRatio(x.ratios.limitFourToOne),
        cell(x, (s) => s.figures.orderViolations),
        cell(x, (s) => s.figures.duplicates),
        [2, 4].map((n) => x.runs[n]?.byReplica?.map((r) => fmtInt(r.sent)).join('/') ?? '—').join(' | '),
        [2, 4].map((n) => cpuOfReplicas(x.runs[n])).join(' | '),
        cell(x, (s) => s.cpu?.percentOfOneCore?.['postgres (bench db)'] ?? '—'),
        REPLICA_COUNTS.map((n) => {
          const st = x.runs[n]?.statements;
          return st ? `${st.rowsPerClaim}/${st.rowsPerCompletion}` : '—';
        }).join(' | '),
        cell(x, (s) => s.statements?.inHandMs.p50 ?? '—'),
        cell(x, (s) => meanOf(s.byReplica, 'publishMeanMs')),
      ]),
    ),
  );
  console.log(
    'msg/s = all replicas together, first → last receipt at the sink. sent per replica = queuebox_outbox_messages_total{status="sent"} of each replica at the end; CPU% = percent of one core of each replica process over the first→last window. rows per claim / completion = delivered rows per distinct claimed_at / updated_at (one app time per statement); in hand = claim to completion of a row; publish mean = queuebox_outbox_publish_duration_seconds sum / count. plain client = rep-limit-<n>-<size>: the HTTP limit client split over n processes, no database.',
  );
}
