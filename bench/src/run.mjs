#!/usr/bin/env node
/**
 * `pnpm bench <outbox|inbox|rabbitmq|nats|all> [flags]` — see bench/README.md. Benchmarks are scripts, not
 * timed tests: they print their figures and conditions and write bench/results/*.json.
 */
import { flagLines, parseArgs } from './lib/args.mjs';
import { runOutbox } from './outbox/index.mjs';
import { runInbox } from './inbox/index.mjs';
import { runRabbitmq } from './rabbitmq/index.mjs';
import { runNats } from './nats/index.mjs';
import { runKafka } from './kafka/index.mjs';
import { runClient } from './client/index.mjs';
import { runBurst } from './burst/index.mjs';
import { runConsole } from './console/index.mjs';

const USAGE =
  'usage: pnpm bench <outbox|inbox|rabbitmq|nats|kafka|client|burst|console|all> [--rows N] [--only id,id] [--cpu-prof] [--no-peers] ... (see bench/README.md)';
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  const flags = flagLines().map((line) => `  ${line}`);
  console.log(`${USAGE}\n\nflags (a bench may set its own default, e.g. kafka --rows 10000):\n${flags.join('\n')}`);
  process.exit(0);
}
const { command, options } = parseArgs(argv);
const commands = {
  outbox: [runOutbox],
  inbox: [runInbox],
  rabbitmq: [runRabbitmq],
  nats: [runNats],
  kafka: [runKafka],
  client: [runClient],
  burst: [runBurst],
  console: [runConsole],
  all: [runOutbox, runInbox],
};
if (!(command in commands)) {
  console.error(USAGE);
  process.exit(2);
}
let failed = 0;
for (const run of commands[command]) {
  const result = await run(options);
  failed += result.scenarios.filter((s) => s.error).length;
}
// A scenario that failed is printed and recorded; the exit code says so too.
process.exit(failed > 0 ? 1 : 0);
