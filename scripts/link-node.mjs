#!/usr/bin/env node
// The workspace runs on the Node.js of the image (ARG NODE_VERSION in docker/Dockerfile), which
// the root's optional dependency node-<platform>-<arch> brings from the npm registry; every
// `pnpm` script finds it first on PATH as node_modules/.bin/node. pnpm links that bin as a shell
// script that exports NODE_PATH (the store's hoisted packages, which would let a deployed app's
// check find a package its own install lacks) and keeps a shell between a signal and node, so
// this postinstall step makes it a plain symlink to the binary. Where the registry has no such
// package for this platform, the scripts use the node on PATH, which must be Node.js 24 or later
// (scripts/check-node.mjs says so).
import { existsSync, lstatSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const name = `node-${process.platform}-${process.arch}`;
const binary = join(root, 'node_modules', name, 'bin', 'node');
const link = join(root, 'node_modules', '.bin', 'node');

if (!existsSync(binary)) {
  console.warn(
    `No ${name} package installed (the npm registry serves Node.js builds for linux-x64 and ` +
      `linux-arm64 at the image's version): the workspace's scripts run on the node on PATH.`,
  );
} else {
  if (existsSync(link) || lstatSync(link, { throwIfNoEntry: false })) rmSync(link);
  symlinkSync(join('..', name, 'bin', 'node'), link);
}
