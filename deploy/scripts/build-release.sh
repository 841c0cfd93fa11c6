#!/usr/bin/env bash
# Packs the release into a folder: the @gatehouse/server tarball, built by its prepack (the server bundle, the
# dashboard build, the migrations), which deploy/scripts/install-release.sh installs. Run from a checkout whose npm
# packages are installed (`npm install`). The Dockerfile's build stage runs it, and so does CI
# (e2e/packages/server-package.test.ts), so the image is built by the same script the tests run.
#
#   deploy/scripts/build-release.sh <output folder>     prints the tarball's path
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 <output folder>" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"

# One tarball per folder, so the installer never has to choose between versions.
rm -f "$out"/gatehouse-server-*.tgz
# The build's progress goes to stderr: stdout is the tarball's path alone.
(cd "$root/packages/server" && npm pack --pack-destination "$out" --loglevel=warn) >&2
tarballs=("$out"/gatehouse-server-*.tgz)
if [ ! -f "${tarballs[0]}" ]; then
  echo "npm pack made no gatehouse-server tarball in $out" >&2
  exit 1
fi
echo "${tarballs[0]}"
