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
]);
const BOOLEAN = new Set(['no-analyze', 'no-peers', 'cpu-prof', 'keep-db', 'no-explain', 'quiet']);

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
};

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
        `Unknown flag --${name}. Known: ${[...NUMERIC, ...BOOLEAN, 'only'].map((n) => `--${n}`).join(' ')}`,
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
  options.onlySet = new Set(
    String(options.only)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return { command: positional[0] ?? '', options };
}

/** `--only qb-a,gw-a` restricts a run to those scenario ids (all when empty). */
export function wanted(options, id) {
  return options.onlySet.size === 0 || options.onlySet.has(id);
}
