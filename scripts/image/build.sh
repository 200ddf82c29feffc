#!/usr/bin/env bash
# `pnpm image:build`: builds docker/Dockerfile into $QUEUEBOX_IMAGE (default localhost/queuebox:dev)
# with a Docker engine when one answers, else with podman (scripts/image/engine.sh), making the
# base image first where no registry serves it (scripts/image/base-image.sh). Prints the image's
# size and fails past QUEUEBOX_IMAGE_BUDGET_MB (docs/operations.md, "The image, built here").
# It installs nothing: .ci/run installs podman, runc and debootstrap from Debian's packages.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=engine.sh
source scripts/image/engine.sh

BUDGET_MB="${QUEUEBOX_IMAGE_BUDGET_MB:-350}"
engine_name="$(image_engine)"
node_version="$(image_node_version)"
version="$(node -p 'require("./apps/queuebox/package.json").version')"
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then revision="$revision-dirty"; fi
started=$SECONDS

if [ "$engine_name" = podman ]; then
  require_podman_tools
fi
# The Dockerfile's FROM: pulled where a registry answers, made here where none does.
if ! engine image inspect "docker.io/library/node:$node_version-bookworm-slim" >/dev/null 2>&1; then
  if [ "$engine_name" = docker ] && docker pull "node:$node_version-bookworm-slim" >/dev/null 2>&1; then
    echo "Pulled node:$node_version-bookworm-slim."
  else
    [ "$engine_name" = podman ] || require_podman_tools
    bash scripts/image/base-image.sh
  fi
elif [ "$engine_name" = podman ]; then
  bash scripts/image/base-image.sh
fi

# The CA bundle npm trusts on this machine (a proxy that re-signs TLS stands between it and the
# registry) goes in as a build secret: mounted read-only for the two downloading steps, never in
# a layer. QUEUEBOX_BUILD_CAFILE names another bundle; an empty value passes none.
cafile="${QUEUEBOX_BUILD_CAFILE-$(npm config get cafile 2>/dev/null || true)}"
[ "$cafile" = null ] || [ "$cafile" = undefined ] && cafile=""
[ -n "$cafile" ] || cafile="${NODE_EXTRA_CA_CERTS:-}"
secret=()
if [ -n "$cafile" ] && [ -s "$cafile" ]; then
  secret=(--secret "id=npm_cafile,src=$cafile")
  echo "Build secret npm_cafile: $cafile"
fi

echo "Building $QUEUEBOX_IMAGE with $engine_name (QueueBox $version, revision $revision, Node.js $node_version) ..."
build_args=(
  --file docker/Dockerfile
  --tag "$QUEUEBOX_IMAGE"
  --build-arg "QUEUEBOX_VERSION=$version"
  --build-arg "QUEUEBOX_REVISION=$revision"
  "${secret[@]}"
)
if [ "$engine_name" = podman ]; then
  # --format docker keeps the HEALTHCHECK (the OCI image format has none); the build stage
  # reaches the registry through the host's network.
  podman_here build --format docker --network host --layers "${build_args[@]}" .
else
  DOCKER_BUILDKIT=1 docker build "${build_args[@]}" .
fi
# The build stage stays as a dangling image; only the runtime image is kept.
engine image prune --force >/dev/null 2>&1 || true

bytes="$(engine image inspect --format '{{ .Size }}' "$QUEUEBOX_IMAGE")"
megabytes=$((bytes / 1000000))
echo "Image $QUEUEBOX_IMAGE: $megabytes MB (budget $BUDGET_MB MB), built in $((SECONDS - started)) s."
if [ "$megabytes" -gt "$BUDGET_MB" ]; then
  echo "The image is $megabytes MB, past its budget of $BUDGET_MB MB (docs/operations.md)." >&2
  exit 1
fi
