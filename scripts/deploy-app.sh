#!/usr/bin/env bash
# The production install of the app into <dir> (default deploy/app): what the image copies, run
# by scripts/image-build.sh and by the test that lists it (apps/queuebox/test/deployed-install.test.ts).
#
# --no-optional: pnpm records the root's TypeScript, which satisfies valibot's OPTIONAL peer, as an
# optional dependency of valibot, and `--prod` alone kept it (pnpm/pnpm#15344): the install then
# carried 23 MB of compiler that nothing loads at run time. No runtime dependency of QueueBox has an
# optional dependency it needs; the deployed-install test fails if a dev tool comes back.
#
# Then scripts/prune-install.mjs removes what nothing loads at run time: third-party source
# maps, type declarations, TypeScript sources and tests, and our own declarations.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-deploy/app}"
rm -rf "$target"
pnpm --filter @queuebox/app deploy --legacy --prod --no-optional "$target" >/dev/null
node scripts/prune-install.mjs "$target"
