#!/usr/bin/env bash
# `pnpm image:test`: runs the image `pnpm image:build` made ($QUEUEBOX_IMAGE) as a user would,
# against this machine's PostgreSQL, RabbitMQ and NATS (apps/queuebox/test/image/), then removes
# every container it started. Run `pnpm build` first: the test compares the image's answers with
# the host's CLI.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=engine.sh
source scripts/image/engine.sh
if ! engine image inspect "$QUEUEBOX_IMAGE" >/dev/null 2>&1; then
  echo "No image $QUEUEBOX_IMAGE: run pnpm image:build first." >&2
  exit 1
fi
export QUEUEBOX_IMAGE_ENGINE="$(image_engine)"
started=$SECONDS
status=0
pnpm exec vitest run --config vitest.image.config.ts "$@" || status=$?
# Whatever a failed run left behind.
leftovers="$(engine ps --all --quiet --filter label=org.queuebox.test=image 2>/dev/null || true)"
if [ -n "$leftovers" ]; then engine rm --force $leftovers >/dev/null 2>&1 || true; fi
echo "pnpm image:test: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s."
exit "$status"
