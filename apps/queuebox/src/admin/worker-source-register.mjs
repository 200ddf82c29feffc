// Loaded with `--import` by a worker process started from the workspace sources (tests run
// there, see vitest.config.ts). Built code never comes here: dist forks its compiled worker.
// Node 20 cannot run TypeScript, so these hooks strip the types as modules load.
import { register } from 'node:module';

register('./worker-source-hooks.mjs', import.meta.url);
