/** `qb-cap-ab`'s targets (issue 14: each ratio capture / polling ≥ 0.9) and its table. */
import { fmtInt, fmtRatio, section, table } from '../lib/report.mjs';
import { CAPTURE_AB_ID, CLIENTS, MODES, MODE_NAME, ROUNDS } from './capture-ab.mjs';

const TARGET = 0.9;

/** The two targets for the targets table; not run when the scenario did not run. */
export function captureAbTargets(scenario) {
  const target = (text, value) => ({
    target: text,
    value: value ?? null,
    met: value === null || value === undefined ? null : value >= TARGET,
  });
  return [
    target(
      `(a) msg/s with capture ≥ ${TARGET} × polling, medians of ${ROUNDS} alternated (issue 14)`,
      scenario?.ratios?.messagesPerSecond,
    ),
    target(
      `${CLIENTS} clients' commits/s with capture ≥ ${TARGET} × polling, medians of ${ROUNDS} (issue 14)`,
      scenario?.ratios?.commitsPerSecond,
    ),
  ];
}

const HEADERS = [
  'round',
  'capture',
  '(a) msg/s',
  'first→last s',
  'delivered',
  'capture up ms',
  'CPU% qb/pg/bench/machine',
  'commits/s',
  'commit p50/p99 ms',
  'delivered by end',
  'capture up ms',
  'CPU% qb/pg/bench/machine',
  'busy% before a/commit',
];

const cpuCell = (run) => {
  const p = run?.cpu?.percentOfOneCore;
  if (!p) return '—';
  return `${p.queuebox ?? 0}/${p['postgres (bench db)'] ?? 0}/${p.bench ?? 0}/${run.cpu.machineBusyPercent}`;
};

const rate = (run, key) => (run?.error ? 'FAILED' : fmtInt(run?.figures?.[key]));

function runRow(pass, mode, a, c) {
  const capture = (run) => (mode === 'capture' ? run?.captureUpMs : 'n/a');
  return [
    pass,
    MODE_NAME[mode],
    rate(a, 'messagesPerSecond'),
    a?.figures?.firstToLastReceiptSeconds,
    a?.figures && `${fmtInt(a.figures.delivered)}${a.figures.timedOut ? ' (timed out)' : ''}`,
    capture(a),
    cpuCell(a),
    rate(c, 'commitsPerSecond'),
    c?.figures && `${c.figures.commitMs.p50}/${c.figures.commitMs.p99}`,
    c?.figures && `${fmtInt(c.figures.deliveredByEnd)} of ${fmtInt(c.figures.commits)}`,
    capture(c),
    cpuCell(c),
    `${a?.quietCheck?.machineBusyPercentBefore ?? '—'}/${c?.quietCheck?.machineBusyPercentBefore ?? '—'}`,
  ];
}

/** A row with the (a) and the commit figure only. */
const figureRow = (label, what, a, c) => {
  const row = HEADERS.map(() => '');
  row.splice(0, 3, label, what, a);
  row[7] = c;
  return row;
};

export function printCaptureAb(scenario) {
  if (!scenario) return;
  section(`outbox benchmark: ${CAPTURE_AB_ID} (issue 14), ${scenario.title}`);
  if (scenario.skipped) {
    console.log(`skipped: ${scenario.skipped}`);
    return;
  }
  const find = (measure, mode, pass) =>
    scenario.runs.find((r) => r.measure === measure && r.mode === mode && r.round === pass);
  const rows = [];
  for (let pass = 1; pass <= ROUNDS; pass += 1)
    for (const mode of MODES)
      rows.push(runRow(pass, mode, find('a', mode, pass), find('commit', mode, pass)));
  for (const mode of MODES) {
    const m = scenario.medians[mode];
    rows.push(
      figureRow('median', MODE_NAME[mode], fmtInt(m.messagesPerSecond), fmtInt(m.commitsPerSecond)),
    );
  }
  const r = scenario.ratios;
  rows.push(
    figureRow(
      'ratio',
      'capture / polling',
      fmtRatio(r.messagesPerSecond),
      fmtRatio(r.commitsPerSecond),
    ),
  );
  console.log(table(HEADERS, rows));
  console.log(
    `(a): rows loaded first, then QueueBox started. Commits: ${CLIENTS} connections of autocommit single-row INSERTs for the window, QueueBox delivering meanwhile. "capture up ms" = process start → /health outbox-capture up (commits: awaited before the window). Targets: each ratio ≥ ${TARGET}. CPU% = percent of one core over the window (bench = the bench process, the ${CLIENTS} clients in the commit runs).`,
  );
  for (const run of scenario.runs.filter((x) => x.error))
    console.log(`${run.id} FAILED: ${run.error}`);
  const dists = new Set(
    scenario.runs.filter((x) => x.queueboxDist).map((x) => x.queueboxDist.sha1),
  );
  if (dists.size > 1)
    console.log(
      `WARNING: the QueueBox build changed between the runs of ${CAPTURE_AB_ID}: ${[...dists].join(' vs ')}`,
    );
}
