/**
 * The frame every broker benchmark (`pnpm bench rabbitmq|nats|kafka`) runs in: open the broker,
 * record and print the conditions, run the wanted scenarios (in `rounds` when asked), close, sum
 * up, print and write the JSON. Each broker's index.mjs supplies only what is its own:
 *
 *   name                 the benchmark's name: the JSON file, the CPU role, the conditions key
 *   open()               the broker handle ({ version, close() })
 *   pid?()               the broker's process on this machine, for the CPU table
 *   conditions(h, pid)   what the conditions record of the broker
 *   where(h, pid)        the printed line that says which broker
 *   rowsNote?            what the "rows per scenario" line adds
 *   scenarios(ctx, h)    [[id, (id) => scenario]] in order
 *   rounds?              how many rounds of the scenarios; each id becomes `<id>#<round>`
 *   summarize(ctx, scenarios) the fields the result adds (ratios, targets, …)
 *   print(result)        the broker's tables; the conditions at the end follow
 */
import { wanted } from './args.mjs';
import { createContext, runScenarios } from './context.mjs';
import { printRunEnd, printRunStart, resultHead, saveResults } from './report.mjs';

export async function runBrokerBench(options, spec) {
  const ctx = await createContext(options);
  const handle = await spec.open();
  const pid = spec.pid?.() ?? null;
  if (pid !== null) ctx.cpu.setRole(pid, spec.name);
  ctx.conditions[spec.name] = spec.conditions(handle, pid);
  const startedMs = Date.now();
  printRunStart(spec.name, ctx.conditions);
  console.log(spec.where(handle, pid));
  console.log(`rows per scenario: ${options.rows}, payload ≈ ${options['body-bytes']} B JSON, null keys${spec.rowsNote ?? ''}`);
  const chosen = spec.scenarios(ctx, handle).filter(([id]) => wanted(options, id));
  const plan = [];
  if (spec.rounds === undefined) {
    for (const [id, fn] of chosen) plan.push([id, () => fn(id)]);
  } else {
    for (let run = 1; run <= spec.rounds; run++) {
      for (const [id, fn] of chosen) plan.push([`${id}#${run}`, async () => ({ ...(await fn(id)), run })]);
    }
  }
  let scenarios;
  try {
    scenarios = await runScenarios(plan, options);
  } finally {
    await handle.close();
    await ctx.close();
  }
  const result = {
    ...resultHead(spec.name, ctx, startedMs, scenarios),
    ...spec.summarize(ctx, scenarios),
  };
  spec.print(result);
  printRunEnd(result);
  saveResults(spec.name, result);
  return result;
}
