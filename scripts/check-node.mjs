#!/usr/bin/env node
// Stops a workspace script that would run on an older Node.js than the workspace's (the root
// package.json's engines), with how to get the right one. The root's optional dependency puts the
// image's Node.js first on PATH for every `pnpm` script (scripts/link-node.mjs); this fails when
// that did not happen (a platform the registry has no build for, or a script run outside pnpm).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const floor = /^>=(\d+)$/.exec(manifest.engines.node)?.[1];
if (!floor)
  throw new Error(`package.json: engines.node must read ">=<major>", not ${manifest.engines.node}`);
const major = Number(process.versions.node.split('.')[0]);
if (major < Number(floor)) {
  console.error(
    `QueueBox's workspace runs on Node.js ${floor} or later; this is ${process.version} ` +
      `(${process.execPath}). Run it through pnpm (\`pnpm build\`, \`pnpm test\`, \`pnpm dev\`), ` +
      `which puts node_modules/.bin/node (Node.js from the npm package ` +
      `node-${process.platform}-${process.arch}) first on PATH; where the npm registry has no ` +
      `such package, install Node.js ${floor} yourself.`,
  );
  process.exit(1);
}
