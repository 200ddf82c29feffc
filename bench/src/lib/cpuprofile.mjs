/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof) of the QueueBox process: self time by package
 * (QueueBox's own workspace packages, each npm package, Node internals, GC, idle) and the top
 * functions by self time. Idle = the event loop waiting; everything else is the event loop busy.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './util.mjs';

function categoryOf(frame) {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(idle)') return '(idle: event loop waiting)';
    if (functionName === '(garbage collector)') return '(garbage collector)';
    if (functionName === '(program)') return '(program: native, outside JS)';
    if (functionName === '(root)') return '(root)';
    return `(native: ${functionName || 'anonymous'})`;
  }
  const pnpm = /node_modules\/\.pnpm\/([^/]+)\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pnpm) return pnpm[2];
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return nm[1];
  const ws = /\/(packages|apps)\/([^/]+)\/dist\//.exec(url);
  if (ws) return `@queuebox/${ws[2]}`;
  if (url.startsWith('node:')) {
    const m = /^node:(?:internal\/)?([^/]+)/.exec(url);
    return `node:${m ? m[1] : url}`;
  }
  return url;
}

export function summarizeProfile(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return { skipped: `no .cpuprofile in ${dir}` };
  const profile = JSON.parse(readFileSync(join(dir, files[0]), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  // The nearest frame that belongs to a library or to QueueBox (not Node internals, not native):
  // the code that caused this sample (a native writev under undici counts for undici).
  const SPECIAL = new Set([
    '(idle: event loop waiting)',
    '(garbage collector)',
    '(program: native, outside JS)',
  ]);
  const causeOf = (id) => {
    const own = categoryOf(byId.get(id).callFrame);
    if (SPECIAL.has(own)) return own;
    let current = id;
    while (current !== undefined) {
      const category = categoryOf(byId.get(current).callFrame);
      if (!category.startsWith('node:') && !category.startsWith('(native') && category !== '(root)')
        return category;
      current = parent.get(current);
    }
    return `${own} (no library frame above)`;
  };
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  const categories = new Map();
  const functions = new Map();
  const causes = new Map();
  for (const [id, us] of selfUs) {
    const cause = causeOf(id);
    causes.set(cause, (causes.get(cause) ?? 0) + us);
    const node = byId.get(id);
    total += us;
    const category = categoryOf(node.callFrame);
    categories.set(category, (categories.get(category) ?? 0) + us);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${category}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const pct = (us) => Math.round((us / total) * 1000) / 10;
  const top = (m, n) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => ({ name: k, percent: pct(v) }));
  const idle = categories.get('(idle: event loop waiting)') ?? 0;
  return {
    file: join(dir, files[0]),
    seconds: Math.round(total / 1e4) / 100,
    busyPercent: pct(total - idle),
    byPackage: top(categories, 15),
    byCausingPackage: top(causes, 12),
    topFunctions: top(functions, 20),
  };
}

/**
 * `--cpu-prof` for one scenario's QueueBox process: the node arguments that write its profile
 * under bench/results/profiles/<stamp>-<id>/, and `report()` to log the summary once QueueBox
 * has stopped (V8 writes the profile at exit). Without `--cpu-prof`: no arguments, no report.
 */
export function cpuProfiling(ctx, id, log) {
  if (!ctx.options['cpu-prof']) return { nodeArgs: [], report() {} };
  const dir = join(RESULTS_DIR, 'profiles', `${ctx.stamp}-${id}`);
  mkdirSync(dir, { recursive: true });
  return {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    report() {
      log(`  ${id} --cpu-prof: ${JSON.stringify(summarizeProfile(dir))}`);
    },
  };
}
