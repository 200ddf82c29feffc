/**
 * Command line of `pnpm bench <outbox|inbox|all> [--flag value ...]`. Every flag has a default
 * that reproduces the figures in docs/benchmarks.md; `--rows 10000` is the quick check.
 */
const NUMERIC = new Set([
  'rows',
  'keys',
  'load-batch',
  'trickle-rate',
  'trickle-seconds',
  'webhook-rate',
  'duration',
  'warmup',
  'connections',
  'gw-concurrency',
  'pgboss-batch',
  'pgboss-workers',
  'peer-sockets',
  'timeout',
  'body-bytes',
  'quiet-wait',
  'gw-b-seconds',
  'analyze-every',
  'client-connections',
  'many-rows',
  'many-connections',
  'pull-workers',
  'pull-batch',
  'pull-concurrency',
  'commit-connections',
  'lock-hold',
  'runs',
  'warm-rows',
]);
const BOOLEAN = new Set([
  'no-analyze',
  'no-peers',
  'cpu-prof',
  'keep-db',
  'no-explain',
  'quiet',
  'full',
]);
/** Flags whose value is kept as text. */
const TEXT = new Set(['only', 'sizes', 'lock']);

export const DEFAULTS = {
  rows: 100_000,
  keys: 1_000,
  'load-batch': 1_000,
  'trickle-rate': 200,
  'trickle-seconds': 20,
  'webhook-rate': 100,
  duration: 20,
  warmup: 3,
  connections: 64,
  'gw-concurrency': 8,
  'pgboss-batch': 500,
  'pgboss-workers': 8,
  'peer-sockets': 8,
  timeout: 300,
  'body-bytes': 1024,
  'quiet-wait': 30,
  'gw-b-seconds': 60,
  'analyze-every': 0,
  // pnpm bench client (issue 15)
  'client-connections': 16,
  'many-rows': 1000,
  'many-connections': 16,
  'pull-workers': 4,
  'pull-batch': 100,
  'pull-concurrency': 8,
  'commit-connections': 32,
  only: '',
  // pnpm bench outbox (issue 18): the backlog sizes of the throughput comparison.
  sizes: '30000,100000',
  // A lock file (e.g. /work/wt/quiet.lock) taken exclusively around each scenario (lib/lock.mjs).
  lock: '',
  // Longest exclusive hold before the lock is released between scenarios (HELPERS: under ~8 min).
  'lock-hold': 300,
  // Source scenarios: rows stored first and left out of the timed span (pnpm bench kafka: 5000).
  'warm-rows': 0,
  // Rounds of a bench that takes the median of its ratios (pnpm bench kafka).
  runs: 3,
};

/** One line per flag for `--help`: its default where it has one, the switches last. */
export function flagLines() {
  const valued = [...NUMERIC, ...TEXT].map((name) =>
    DEFAULTS[name] === '' ? `--${name} <value>` : `--${name} (default ${DEFAULTS[name]})`,
  );
  return [...valued, ...[...BOOLEAN].map((name) => `--${name}`)];
}

/** @param {string[]} argv */
export function parseArgs(argv) {
  const options = { ...DEFAULTS };
  const positional = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--') continue;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2);
    if (BOOLEAN.has(name)) {
      options[name] = inline === undefined ? true : inline !== 'false';
      continue;
    }
    if (!(name in DEFAULTS))
      throw new Error(
        `Unknown flag --${name}. Known: ${[...NUMERIC, ...BOOLEAN, ...TEXT].map((n) => `--${n}`).join(' ')}`,
      );
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    if (NUMERIC.has(name)) {
      const n = Number(value.replaceAll('_', ''));
      if (
        !Number.isFinite(n) ||
        n < 0 ||
        (n === 0 && !['analyze-every', 'quiet-wait'].includes(name))
      )
        throw new Error(`--${name} needs a positive number, not ${value}`);
      options[name] = n;
    } else {
      options[name] = value;
    }
  }
  options.sizeList = String(options.sizes)
    .split(',')
    .map((s) => Number(s.trim().replaceAll('_', '')))
    .filter((n) => {
      if (!Number.isInteger(n) || n < 2) throw new Error(`--sizes needs whole numbers ≥ 2, not ${options.sizes}`);
      return true;
    });
  options.onlySet = new Set(
    String(options.only)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return { command: positional[0] ?? '', options };
}

/** `30k` for 30000: the size suffix of the throughput scenario ids. */
export function sizeLabel(rows) {
  return rows % 1000 === 0 ? `${rows / 1000}k` : String(rows);
}

/**
 * `--only qb-a,gw-a` restricts a run to those scenario ids (all when empty). A name without the
 * size suffix takes every size (`qb-a` is `qb-a-30k` and `qb-a-100k`), and a peer family takes
 * all its configurations (`pgb12` is `pgb12-8x500-30k`, `pgb12-1x1000-30k`, …).
 */
export function wanted(options, id) {
  if (options.onlySet.size === 0) return true;
  const base = id.replace(/-\d+k?$/, '');
  const family = base.split('-')[0];
  return options.onlySet.has(id) || options.onlySet.has(base) || options.onlySet.has(family);
}

/** Whether `--only` named anything at all (else the default plan runs). */
export const onlyGiven = (options) => options.onlySet.size > 0;
