#!/usr/bin/env bash
# `pnpm image:sbom [output]`: a CycloneDX SBOM of the built image ($QUEUEBOX_IMAGE), made by
# cdxgen (the npm package @cyclonedx/cdxgen, with its Linux binary plugins for the Debian
# packages), from the image's archive as `save` writes it. Default output:
# $QUEUEBOX_IMAGE_HOME/queuebox-sbom.cdx.json. Then it checks the SBOM as a user would: Debian's
# and npm's packages listed, our own at the image's version, no development tool.
# The tools install once under $QUEUEBOX_IMAGE_HOME/tools, outside the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=engine.sh
source scripts/image/engine.sh

CDXGEN_VERSION=12.8.4
PLUGINS_VERSION=2.5.1
tools="$QUEUEBOX_IMAGE_HOME/tools"
output="${1:-$QUEUEBOX_IMAGE_HOME/queuebox-sbom.cdx.json}"
version="$(node -p 'require("./apps/queuebox/package.json").version')"
started=$SECONDS

if ! "$tools/node_modules/.bin/cdxgen" --version 2>/dev/null | grep -q "Generator $CDXGEN_VERSION"; then
  mkdir -p "$tools"
  (cd "$tools" && npm install --no-audit --no-fund --omit=optional --silent \
    "@cyclonedx/cdxgen@$CDXGEN_VERSION" \
    "@cdxgen/cdxgen-plugins-bin@$PLUGINS_VERSION" \
    "@cdxgen/cdxgen-plugins-bin-linux-amd64@$PLUGINS_VERSION")
fi

archive="$QUEUEBOX_IMAGE_HOME/sbom/queuebox.tar"
mkdir -p "$(dirname "$archive")"
rm -f "$archive"
engine save --format docker-archive -o "$archive" "$QUEUEBOX_IMAGE" 2>/dev/null \
  || engine save -o "$archive" "$QUEUEBOX_IMAGE"
# FETCH_LICENSE=false: license texts come from the packages in the image, not from the network.
(cd "$(dirname "$archive")" && FETCH_LICENSE=false "$tools/node_modules/.bin/cdxgen" \
  -t docker --project-name queuebox --project-version "$version" -o "$output" "$archive" \
  >"$QUEUEBOX_IMAGE_HOME/sbom/cdxgen.log" 2>&1) || {
  tail -20 "$QUEUEBOX_IMAGE_HOME/sbom/cdxgen.log" >&2
  exit 1
}
rm -f "$archive"

node - "$output" "$version" <<'CHECK'
const [file, version] = process.argv.slice(2);
const bom = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
const purls = (bom.components ?? []).map((c) => c.purl ?? '');
const count = (prefix) => purls.filter((p) => p.startsWith(prefix)).length;
const problems = [];
if (bom.bomFormat !== 'CycloneDX') problems.push(`bomFormat is ${bom.bomFormat}`);
for (const wanted of ['pkg:deb/debian/libc6@', 'pkg:deb/debian/ca-certificates@', 'pkg:npm/postgres@', `pkg:npm/%40queuebox/core@${version}`])
  if (!purls.some((p) => p.startsWith(wanted))) problems.push(`no ${wanted}`);
const tools = purls.filter((p) => /^pkg:npm\/(typescript|vitest|esbuild|eslint|prettier|turbo|embedded-postgres|%40queuebox\/(dev|testing|bench))@/.test(p));
if (tools.length > 0) problems.push(`development tools listed: ${tools.join(', ')}`);
if (problems.length > 0) {
  console.error(`The SBOM ${file} is not what the image holds: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(`SBOM ${file}: CycloneDX ${bom.specVersion}, ${count('pkg:deb/')} Debian packages, ${count('pkg:npm/')} npm packages.`);
CHECK
echo "pnpm image:sbom: done in $((SECONDS - started)) s."
