#!/usr/bin/env bash
# Starts QueueBox on the demo configuration (docker/queuebox.yml) against the local PostgreSQL.
# It creates the `queuebox` database when it is missing; QueueBox migrates it at start.
set -euo pipefail
cd "$(dirname "$0")/.."
host=${PGHOST:-127.0.0.1}
if ! psql -h "$host" -U postgres -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'queuebox'" | grep -q 1; then
  psql -h "$host" -U postgres -d postgres -c 'CREATE DATABASE queuebox' >/dev/null
fi
export QUEUEBOX_CONFIG_FILE=${QUEUEBOX_CONFIG_FILE:-docker/queuebox.yml}
exec node apps/queuebox/dist/main.js "$@"
