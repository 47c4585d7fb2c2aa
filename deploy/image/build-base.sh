#!/bin/sh
# Builds a Node base image as a tar from Debian packages (mmdebstrap, bookworm minbase) plus this
# machine's Node binary and npm, for building the Dockerfile where no registry image can be pulled:
#   deploy/image/build-base.sh base.tar
#   podman import base.tar localhost/kepler-model-node:20
#   podman build --network host --build-arg NODE_IMAGE=localhost/kepler-model-node:20 -t kepler-model .
# The image has the `node` user (uid 1000) the official node images have. The machine's extra CA
# certificates and global npmrc go in too, so `npm ci` inside the build reaches the npm registry the
# way this machine does (e.g. through a TLS-inspecting proxy).
set -eu
out=${1:?usage: build-base.sh <base.tar>}
node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
set -- --variant=minbase --include=ca-certificates,libstdc++6 \
  --customize-hook='mkdir -p "$1/usr/lib/node_modules/npm" "$1/usr/etc" "$1/usr/local/share/ca-certificates"' \
  --customize-hook="copy-in $node_bin /usr/bin" \
  --customize-hook="sync-in $npm_dir /usr/lib/node_modules/npm" \
  --customize-hook='chroot "$1" ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm' \
  --customize-hook='chroot "$1" useradd --uid 1000 --create-home --shell /bin/sh node'
if [ -d /usr/local/share/ca-certificates ]; then
  set -- "$@" --customize-hook='sync-in /usr/local/share/ca-certificates /usr/local/share/ca-certificates' \
    --customize-hook='chroot "$1" update-ca-certificates >/dev/null'
fi
if [ -f /usr/etc/npmrc ]; then
  set -- "$@" --customize-hook='copy-in /usr/etc/npmrc /usr/etc'
fi
exec mmdebstrap "$@" bookworm "$out"
