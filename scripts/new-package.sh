#!/usr/bin/env bash
# Lays out an empty workspace package: scripts/new-package.sh <dir> <name> "<description>"
set -euo pipefail
dir=$1; name=$2; desc=$3
mkdir -p "$dir/src"
rel=$(realpath --relative-to="$dir" tsconfig.base.json)
cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  "description": "$desc",
  "private": true,
  "type": "module",
  "license": "Apache-2.0",
  "engines": { "node": ">=20.19" },
  "exports": {
    ".": {
      "@queuebox/source": "./src/index.ts",
      "types": "./dist/index.d.ts",
      "default": "./dist/index.js"
    }
  },
  "files": ["dist"],
  "scripts": {
    "build": "rm -rf dist && tsc -p tsconfig.build.json",
    "typecheck": "tsc -p tsconfig.json --noEmit",
    "test": "vitest run --root ../.. --project $name"
  }
}
JSON
cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "$rel",
  "compilerOptions": {
    "customConditions": ["@queuebox/source"],
    "noEmit": true
  },
  "include": ["src", "test"]
}
JSON
cat > "$dir/tsconfig.build.json" <<JSON
{
  "extends": "$rel",
  "compilerOptions": {
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"],
  "exclude": ["src/**/*.test.ts"]
}
JSON
