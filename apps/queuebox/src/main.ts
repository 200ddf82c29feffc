#!/usr/bin/env node
/**
 * QueueBox entry point. It turns on Node's compile cache before anything else loads (static
 * imports would load first), then runs the command line (cli/command.ts). With the cache a start
 * of a build that already ran once reads the compiled code of its modules from disk instead of
 * compiling them again. Node 20 has no such cache, and `NODE_DISABLE_COMPILE_CACHE=1` (Node's
 * own switch) turns it off; a cache directory that cannot be written only leaves it off.
 */
import * as nodeModule from 'node:module';

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./cli/command.js');
