#!/usr/bin/env bash
# Builds the pinned node binaries (btcd, btcctl, lnd, lncli) from nodes/go.mod.
# The output lands in $REGLAB_BIN_DIR (default ~/.cache/reglab/bin) and is rebuilt only when
# nodes/go.mod, nodes/go.sum or the build tags change: a stamp file records the pin they were built from.
# One `go build` makes all four: the packages they share are compiled once.
# lnd gets `lowscrypt`, its own build tag for test networks: its wallet's keys are derived with
# light scrypt settings, so creating and unlocking a lab node's wallet costs next to no CPU
# instead of seconds per node (what made bring-up slow on two cores). Never for real funds.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${REGLAB_BIN_DIR:-$HOME/.cache/reglab/bin}
tags="signrpc walletrpc chainrpc invoicesrpc peersrpc autopilotrpc watchtowerrpc lowscrypt"
pin=$( (cat "$here/nodes/go.mod" "$here/nodes/go.sum"; echo "$tags") | sha256sum | cut -c1-16)
stamp="$out/.pin"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pin" ] \
  && [ -x "$out/btcd" ] && [ -x "$out/btcctl" ] && [ -x "$out/lnd" ] && [ -x "$out/lncli" ]; then
  echo "node binaries up to date in $out (pin $pin)"
  exit 0
fi
command -v go >/dev/null || { echo "Go is required to build btcd and lnd (https://go.dev/dl)" >&2; exit 1; }
# Go's build cache beside the binaries (unless GOCACHE says otherwise): kept with reglab's other
# caches, so that a new pin recompiles only the packages it changes
export GOCACHE="${GOCACHE:-${REGLAB_CACHE_DIR:-$HOME/.cache/reglab}/go-build}"
mkdir -p "$out" "$GOCACHE"
echo "building btcd, btcctl, lnd, lncli (pin $pin) into $out — a few minutes the first time"
cd "$here/nodes"
# built aside, then renamed into place: nodes running from the old binaries are not disturbed
staging=$(mktemp -d "$out/.build-XXXXXX")
trap 'rm -rf "$staging"' EXIT
CGO_ENABLED=0 go build -trimpath \
  -tags="$tags" \
  -o "$staging/" \
  github.com/btcsuite/btcd github.com/btcsuite/btcd/cmd/btcctl \
  github.com/lightningnetwork/lnd/cmd/lnd github.com/lightningnetwork/lnd/cmd/lncli
for binary in btcd btcctl lnd lncli; do mv -f "$staging/$binary" "$out/$binary"; done
echo "$pin" > "$stamp"
echo "node binaries built in $out"
