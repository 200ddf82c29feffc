#!/usr/bin/env bash
# Sourced by the image scripts: which container engine builds and runs the image, and how.
#
# A Docker engine that answers is used as it is. Otherwise podman, as root, with what this kind
# of machine needs (docs/operations.md, "The image, built here"):
# - runc with cgroupfs: the cgroups are a v1/v2 hybrid that crun refuses, and runc refuses
#   --cgroups=disabled;
# - CONTAINERS_CONF with `default_ulimits = []`: the runtime may not raise RLIMIT_NOFILE or
#   RLIMIT_NPROC here;
# - its own storage under QUEUEBOX_IMAGE_HOME (default /var/tmp/queuebox-image), outside the
#   repository, so removing that folder removes every image and container these scripts made.
# QUEUEBOX_IMAGE_ENGINE=podman|docker forces one.

QUEUEBOX_IMAGE_HOME="${QUEUEBOX_IMAGE_HOME:-/var/tmp/queuebox-image}"
QUEUEBOX_IMAGE="${QUEUEBOX_IMAGE:-localhost/queuebox:dev}"
export QUEUEBOX_IMAGE_HOME QUEUEBOX_IMAGE

image_engine() {
  if [ -n "${QUEUEBOX_IMAGE_ENGINE:-}" ]; then
    echo "$QUEUEBOX_IMAGE_ENGINE"
  elif command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1; then
    echo docker
  else
    echo podman
  fi
}

# podman with this machine's settings; every image script calls the engine through `engine`.
podman_here() {
  mkdir -p "$QUEUEBOX_IMAGE_HOME"
  local conf="$QUEUEBOX_IMAGE_HOME/containers.conf"
  if [ ! -f "$conf" ]; then
    printf '[containers]\ndefault_ulimits = []\n' >"$conf"
  fi
  CONTAINERS_CONF="$conf" podman --runtime runc --cgroup-manager cgroupfs \
    --root "$QUEUEBOX_IMAGE_HOME/storage" --runroot "$QUEUEBOX_IMAGE_HOME/run" "$@"
}

engine() {
  if [ "$(image_engine)" = docker ]; then docker "$@"; else podman_here "$@"; fi
}

# The tools a podman build needs, named with the Debian packages that bring them.
require_podman_tools() {
  local missing=()
  for tool in podman runc debootstrap; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "The image build needs ${missing[*]}: apt-get install -y podman runc debootstrap" >&2
    return 1
  fi
}

# ARG NODE_VERSION of docker/Dockerfile: the Node.js the image runs.
image_node_version() {
  local version
  version=$(sed -n 's/^ARG NODE_VERSION=//p' "$(dirname "${BASH_SOURCE[0]}")/../../docker/Dockerfile")
  [ -n "$version" ] || { echo "docker/Dockerfile names no ARG NODE_VERSION" >&2; return 1; }
  echo "$version"
}
