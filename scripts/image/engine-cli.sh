#!/usr/bin/env bash
# The container engine of the image scripts with this machine's settings (scripts/image/engine.sh):
#   bash scripts/image/engine-cli.sh images
#   bash scripts/image/engine-cli.sh run --rm --network host localhost/queuebox:dev --version
set -euo pipefail
# shellcheck source=engine.sh
source "$(dirname "$0")/engine.sh"
engine "$@"
