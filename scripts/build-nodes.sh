#!/usr/bin/env bash
# Builds the pinned node binaries (btcd, btcctl, lnd, lncli) from nodes/go.mod.
# The output lands in $REGLAB_BIN_DIR (default ~/.cache/reglab/bin) and is rebuilt only when
# nodes/go.mod or nodes/go.sum change: a stamp file records the pin the binaries were built from.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${REGLAB_BIN_DIR:-$HOME/.cache/reglab/bin}
pin=$(cat "$here/nodes/go.mod" "$here/nodes/go.sum" | sha256sum | cut -c1-16)
stamp="$out/.pin"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pin" ] \
  && [ -x "$out/btcd" ] && [ -x "$out/btcctl" ] && [ -x "$out/lnd" ] && [ -x "$out/lncli" ]; then
  echo "node binaries up to date in $out (pin $pin)"
  exit 0
fi
command -v go >/dev/null || { echo "Go is required to build btcd and lnd (https://go.dev/dl)" >&2; exit 1; }
mkdir -p "$out"
echo "building btcd, btcctl, lnd, lncli (pin $pin) into $out — a few minutes the first time"
cd "$here/nodes"
CGO_ENABLED=0 go build -trimpath \
  -tags="signrpc walletrpc chainrpc invoicesrpc peersrpc autopilotrpc watchtowerrpc" \
  -o "$out/" \
  github.com/btcsuite/btcd github.com/btcsuite/btcd/cmd/btcctl \
  github.com/lightningnetwork/lnd/cmd/lnd github.com/lightningnetwork/lnd/cmd/lncli
echo "$pin" > "$stamp"
echo "node binaries built in $out"
