#!/usr/bin/env node
// Loads every provider of the registry from this install and fails naming the missing ones.
// The build runs it on the workspace; CI runs it again on the production install (`pnpm deploy`).
import { checkProviders, providers } from './providers.js';

const problems = await checkProviders();
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(
  `All ${Object.keys(providers).length} provider(s) load: ${Object.keys(providers).join(', ')}.`,
);
