/** Printing (aligned tables) and the JSON file in bench/results/<timestamp>-<name>.json. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, RESULTS_DIR, round } from './util.mjs';

export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) =>
    r.map((c) => (c === null || c === undefined ? '—' : String(c))),
  );
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join(' | ');
  return [
    line(cells[0]),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...cells.slice(1).map(line),
  ].join('\n');
}

export function section(title) {
  console.log(`\n=== ${title} ===`);
}

export function printConditions(conditions) {
  const m = conditions.machine;
  console.log(
    [
      `machine: nproc=${m.nproc}, CPU=${m.cpuModel}, memory=${m.memoryGiB} GiB, node ${m.node}`,
      `PostgreSQL: ${m.postgres.version.split(' on ')[0]} (shared_buffers=${m.postgres.shared_buffers}, synchronous_commit=${m.postgres.synchronous_commit}, jit=${m.postgres.jit}, autovacuum=${m.postgres.autovacuum}, work_mem=${m.postgres.work_mem}, max_connections=${m.postgres.max_connections}, shared_preload_libraries='${m.postgres.preload}')`,
      `QueueBox: ${m.queuebox.main} built ${m.queuebox.distBuiltAt} (dist fingerprint ${m.queuebox.dist.sha1}, newest file ${m.queuebox.dist.newestBuild}), git ${m.queuebox.gitHead}${m.queuebox.uncommittedOutsideBench.length ? `, uncommitted: ${m.queuebox.uncommittedOutsideBench.join('; ')}` : ''}`,
      `peers: ${Object.entries(m.peers)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `load average before: ${fmtLoad(conditions.loadBefore)}${conditions.loadAfter ? `; after: ${fmtLoad(conditions.loadAfter)}` : ''}`,
    ].join('\n'),
  );
}

/** Warns when colleagues rebuilt QueueBox between scenarios of one run. */
export function distCheck(scenarios) {
  const seen = [
    ...new Set(
      scenarios
        .filter((s) => s.queueboxDist)
        .map((s) => `${s.queueboxDist.sha1} (newest file ${s.queueboxDist.newestBuild})`),
    ),
  ];
  if (seen.length > 1)
    console.log(
      `WARNING: the QueueBox build changed during this run (rebuilt by someone else): ${seen.join(' vs ')}; see queueboxDist per scenario in the JSON.`,
    );
  else if (seen.length === 1) console.log(`QueueBox build measured in every scenario: ${seen[0]}`);
  return seen;
}

export const fmtLoad = (l) => (l ? `${l.one} ${l.five} ${l.fifteen}` : '—');

export function writeResults(name, result) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(RESULTS_DIR, `${stamp}-${name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export const fmtInt = (x) =>
  x === null || x === undefined ? '—' : Math.round(x).toLocaleString('en-US');
export const fmtRatio = (x) =>
  x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(2);

/**
 * The fields every benchmark's JSON starts with: its name, when it ran and for how long, the
 * options it was given (without the parser's bookkeeping in `omit`), the conditions and the
 * scenarios.
 */
export function resultHead(name, ctx, startedMs, scenarios, omit = ['onlySet']) {
  return {
    benchmark: name,
    startedAt: ctx.startedAt,
    finishedAt: new Date().toISOString(),
    runtimeSeconds: round((Date.now() - startedMs) / 1000, 0),
    options: Object.fromEntries(Object.entries(ctx.options).filter(([k]) => !omit.includes(k))),
    conditions: ctx.conditions,
    scenarios,
  };
}

/** The targets table under `title`: each target, what was measured, and whether it was met. */
export function printTargets(title, targets) {
  section(title);
  console.log(
    table(
      ['target', 'measured', 'met'],
      targets.map((t) => [t.target, t.value, t.met === null ? 'not run' : t.met ? 'yes' : 'NO']),
    ),
  );
}

/** A run's last lines: the conditions at its end, the build it measured, how long it took. */
export function printRunEnd(result) {
  section('conditions at the end');
  printConditions(result.conditions);
  distCheck(result.scenarios);
  log(`${result.benchmark} benchmark took ${result.runtimeSeconds} s`);
}

/**
 * A scenario's --cpu-prof summary: how busy the event loop was, self time by package and by the
 * package that caused it, and the `top` functions.
 */
export function printProfile(profile, top) {
  const shares = (list, joiner) => list.map((p) => `${p.name} ${p.percent}%`).join(joiner);
  console.log(
    `  --cpu-prof: event loop busy ${profile.busyPercent}% of ${profile.seconds} s; self time by package: ${shares(profile.byPackage, ', ')}`,
  );
  console.log(
    `  self time attributed to the nearest library frame (who caused it): ${shares(profile.byCausingPackage, ', ')}`,
  );
  console.log(`  top functions: ${shares(profile.topFunctions.slice(0, top), '; ')}`);
}

/** A run's first lines: the conditions it starts under. */
export function printRunStart(name, conditions) {
  section(`${name} benchmark: conditions`);
  printConditions(conditions);
}

/** Writes the run's JSON and says where. */
export function saveResults(name, result) {
  console.log(`\nJSON: ${writeResults(name, result)}`);
}
