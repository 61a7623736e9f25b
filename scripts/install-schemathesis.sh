#!/usr/bin/env bash
# Installs schemathesis (pinned, from PyPI) into a venv of the lab's cache, once per version; the
# conformance tests run its CLI from there. Prints the path of the `st` executable.
set -euo pipefail
VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
CACHE="${REGLAB_CACHE_DIR:-$HOME/.cache/reglab}"
VENV="$CACHE/schemathesis-venv-$VERSION"
if ! "$VENV/bin/st" --version >/dev/null 2>&1; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
fi
echo "$VENV/bin/st"
