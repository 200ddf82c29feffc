/**
 * The tables the rabbitmq and nats benchmarks print alike: the outbox scenarios, the source
 * scenario, QueueBox's settings, the ratios and the targets. `labels` names what differs:
 * { role, count: [figure key, header], left: [figure key, header], cpu: 'broker' | 'server' }.
 */
import { toYaml } from './queuebox.mjs';
import { fmtInt, fmtLoad, fmtRatio, printTargets, section, table } from './report.mjs';
import { round } from './util.mjs';

/** Rates, ratios and "met" over one run's scenarios. */
export function figuresOf(scenarios) {
  const ok = (id) => scenarios.find((s) => s.id === id && !s.error);
  const rate = (id) => ok(id)?.figures?.messagesPerSecond ?? null;
  return {
    ok,
    rate,
    ratio: (a, b) => (rate(a) && rate(b) ? round(rate(a) / rate(b), 2) : null),
    met: (value, test) => (value === null || value === undefined ? null : test(value)),
  };
}

/** "client/broker/pg/machine" percent of one core over the scenario's first→last window. */
export const cpuCell = (role) => (s) => {
  const p = s.cpu?.percentOfOneCore;
  if (!p) return '—';
  return `${p.queuebox ?? p.bench ?? 0}/${p[role] ?? 0}/${p['postgres (bench db)'] ?? 0}/${s.cpu.machineBusyPercent}`;
};

export function printOutboxTable(name, ok, labels) {
  const cpu = cpuCell(labels.role);
  const [countKey, countHeader] = labels.count;
  section(`${name} benchmark: outbox → ${labels.target}`);
  console.log(
    table(
      ['id', 'system', 'scenario', 'rows', 'msg/s', 'first→last s', countHeader, 'lost', `CPU% client/${labels.cpu}/pg/machine`, 'load before → after'],
      ok
        .filter((s) => s.figures?.messagesPerSecond !== undefined)
        .map((s) => [
          s.id,
          s.system,
          s.title,
          fmtInt(s.rows),
          fmtInt(s.figures.messagesPerSecond),
          s.figures.firstToLastSeconds,
          fmtInt(s.figures[countKey]),
          s.figures.lost,
          cpu(s),
          `${fmtLoad(s.loadAverage.before)} → ${fmtLoad(s.loadAverage.after)}`,
        ]),
    ),
  );
}

export function printSourceTable(name, src, labels) {
  const [leftKey, leftHeader] = labels.left;
  section(`${name} benchmark: ${labels.source} → inbox`);
  const f = src.figures;
  console.log(
    table(
      ['rows', 'stored/s', 'first→last s', 'start→all s', 'stored', 'lost', 'twice', 'dead', leftHeader, `CPU% qb/${labels.cpu}/pg/machine`],
      [[fmtInt(src.rows), fmtInt(f.storedPerSecond), f.firstToLastSeconds, f.processStartToAllSeconds, f.stored, f.lost, f.storedTwice, f.dead, f[leftKey], cpuCell(labels.role)(src)]],
    ),
  );
}

export function printQueueBoxSettings(ok) {
  for (const s of ok.filter((x) => x.system === 'QueueBox')) {
    console.log(`${s.id}: YAML (${s.settings.env.QUEUEBOX_CONFIG_FILE}):\n${toYaml(s.settings.yaml, 4)}`);
    console.log(`  ${s.settings.note}`);
    if (s.queueboxMetrics && Object.keys(s.queueboxMetrics).length)
      console.log(`  /metrics at the end: ${JSON.stringify(s.queueboxMetrics)}`);
  }
}

export function printRatiosAndTargets(result, issue) {
  section('ratios');
  for (const [k, v] of Object.entries(result.ratios)) console.log(`${k}: ${fmtRatio(v)}`);
  printTargets(`targets (issue ${issue})`, result.targets);
}

/**
 * What follows a broker's tables: the CPU footnote, the settings (QueueBox's, then each plain
 * client scenario of `system` as `client` prints it), the failed scenarios, the ratios and the
 * targets of `issue`.
 */
export function printBrokerTail(result, { issue, system, client }) {
  const ok = result.scenarios.filter((s) => !s.error);
  console.log(
    'CPU% = percent of one core over the first→last window (client = QueueBox, or this process for the plain client).',
  );
  section('settings');
  printQueueBoxSettings(ok);
  for (const s of ok.filter((x) => x.system === system)) client(s);
  for (const s of result.scenarios.filter((x) => x.error)) console.log(`\n${s.id} FAILED: ${s.error}`);
  printRatiosAndTargets(result, issue);
}

/** The source's targets, the same for every broker: its rate and its integrity. */
export function sourceTargets(src, met) {
  return [
    {
      target: 'source ≥ 4,000 stored/s',
      value: src?.storedPerSecond ?? null,
      met: met(src?.storedPerSecond, (v) => v >= 4000),
    },
    {
      target: 'source: 0 lost, 0 stored twice',
      value: src ? `${src.lost} lost, ${src.storedTwice} twice` : null,
      met: src ? src.lost === 0 && src.storedTwice === 0 : null,
    },
  ];
}
