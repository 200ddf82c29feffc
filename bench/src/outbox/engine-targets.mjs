/**
 * The delivery engine's targets for one backlog size, from the scenarios of one run: QueueBox (a)
 * against the best peer, (b) against (a), and the QueueBox process's CPU per message against the
 * bare HTTP client's. Beside the CPU ratio stands its floor when limit-db-<size> ran: the bare
 * client's CPU per message plus the CPU per row of the outbox's claims and completions run beside
 * it in a process of their own, over the bare client's. An outbox process that runs those
 * statements and those requests saves at most the second process's own runtime, so a floor above the
 * target says the target is out of reach for these statements on this machine, in this run. Two
 * things move it: the client's figure is its own alone (beside the work it spends more, on a busier
 * machine), which keeps the floor low; the work claims and completes 400 rows a time, as
 * QueueBox does under a deep backlog.
 */
import { OUTBOX_WORK_BATCH } from '../lib/outbox-ceiling.mjs';
import { ratio, round } from '../lib/util.mjs';

const PEER_RATIO = 1.0;
const KEYED_RATIO = 0.9;
const CPU_RATIO = 1.5;

const workerCpu = (s) => s?.figures?.cpuMsPerMessage?.worker ?? null;

/**
 * The outbox work's CPU per row inside the client's window: its share of a core over that
 * window, over the rows it had written by the client's last response (the rest came after).
 */
function outboxWorkCpu(ceiling) {
  const percent = ceiling?.cpu?.percentOfOneCore?.['outbox work'];
  const rows = ceiling?.figures?.outboxRowsWrittenByClientEnd;
  const seconds = ceiling?.cpu?.seconds;
  if (percent === undefined || !rows || !seconds) return null;
  return round(((percent / 100) * seconds * 1000) / rows, 3);
}

/**
 * The comparison's scenarios of one size (`a` QueueBox (a), `limit` and `ceiling` the HTTP limit
 * alone and with the outbox work, `bestPeer`) and the two rate ratios it has already computed.
 */
export function engineTargets(size, { a, limit, ceiling, bestPeer, toPeer, keyed }) {
  const cpu = { queuebox: workerCpu(a), client: workerCpu(limit) };
  const work = outboxWorkCpu(ceiling);
  const floor = work === null || cpu.client === null ? null : round(cpu.client + work, 3);
  const cpuRatio = ratio(cpu.queuebox, cpu.client);
  const floorRatio = ratio(floor, cpu.client);
  const met = (value, ok) => (value === null ? null : ok);
  return {
    ratios: {
      [`${size}: CPU ms/msg, QueueBox (a) / HTTP limit client (${cpu.queuebox ?? '—'} / ${cpu.client ?? '—'})`]:
        cpuRatio,
      [`${size}: CPU floor of any outbox with these statements / HTTP limit client (client alone + outbox work ${work ?? '—'} ms/msg at ${OUTBOX_WORK_BATCH} rows per claim, limit-db-${size})`]:
        floorRatio,
    },
    targets: [
      {
        target: `${size}: (a) ≥ ${PEER_RATIO.toFixed(1)} × best peer (${bestPeer?.id ?? '—'}) (issue 39)`,
        value: toPeer,
        met: met(toPeer, toPeer >= PEER_RATIO),
      },
      {
        target: `${size}: (b) ≥ ${KEYED_RATIO} × (a) in the same run (issue 39)`,
        value: keyed,
        met: met(keyed, keyed >= KEYED_RATIO),
      },
      {
        target: `${size}: CPU per message, QueueBox / HTTP limit client ≤ ${CPU_RATIO} (issue 39; floor ${floorRatio ?? 'not run'})`,
        value: cpuRatio,
        met: met(cpuRatio, cpuRatio <= CPU_RATIO),
      },
    ],
  };
}
