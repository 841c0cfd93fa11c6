#!/usr/bin/env bash
# Installs the release that deploy/scripts/build-release.sh packed, with its production dependencies only, into a
# prefix: the `gatehouse-server` command is then <prefix>/node_modules/.bin/gatehouse-server. The Dockerfile's
# runtime stage runs it, and so does CI (e2e/packages/server-package.test.ts), with plain npm and no repository.
#
#   deploy/scripts/install-release.sh <release folder> <prefix>
#
# npm's own settings come from its environment as usual (npm_config_prefer_offline=true, a registry mirror, ...).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <release folder> <prefix>" >&2
  exit 2
fi
tarballs=("$1"/gatehouse-server-*.tgz)
if [ ${#tarballs[@]} -ne 1 ] || [ ! -f "${tarballs[0]}" ]; then
  echo "expected one gatehouse-server-*.tgz in $1" >&2
  exit 1
fi
tarball="$(cd "$(dirname "${tarballs[0]}")" && pwd)/$(basename "${tarballs[0]}")"
mkdir -p "$2"
cd "$2"

# A package.json of the prefix's own, so npm installs here and not into a project found in a parent folder.
if [ ! -f package.json ]; then
  echo '{ "name": "gatehouse-install", "private": true }' > package.json
fi
npm install --omit=dev --no-audit --no-fund --no-update-notifier --loglevel=warn "$tarball"
# A broken install fails here, at build time, rather than at the first start.
node_modules/.bin/gatehouse-server --version
