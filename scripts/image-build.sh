#!/usr/bin/env bash
# The build steps of the container image (docker/Dockerfile runs this very script), so CI, which
# runs it too, proves the image's build on every submission: a frozen install, the build (which
# checks the provider registry), the production install the image copies, and the provider
# check again on that production install.
set -euo pipefail
cd "$(dirname "$0")/.."
pnpm install --frozen-lockfile
pnpm build
rm -rf deploy
pnpm --filter @queuebox/app deploy --legacy --prod deploy/app >/dev/null
node deploy/app/dist/check-providers.js
