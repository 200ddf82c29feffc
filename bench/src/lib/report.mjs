/** Printing (aligned tables) and the JSON file in bench/results/<timestamp>-<name>.json. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './util.mjs';

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
