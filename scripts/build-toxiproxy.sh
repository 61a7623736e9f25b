#!/usr/bin/env bash
# Builds toxiproxy-server, the TCP proxy a lab with network faults puts on its links, pinned in
# nodes/toxiproxy/go.mod (github.com/Shopify/toxiproxy/v2, from the Go module proxy).
# The binary lands in $REGLAB_BIN_DIR (default ~/.cache/reglab/bin) and is rebuilt only when
# nodes/toxiproxy/go.mod or go.sum change: a stamp file records the pin it was built from.
# setup.sh runs it with --all or --test; otherwise a lab's bring-up runs it the first time the lab
# has network faults (control-plane/src/nodes/binary-build.ts), after asking with --check: exit 0
# when the binary is up to date, 1 when it needs a build, nothing printed.
set -euo pipefail
check_only=false
[ "${1:-}" = "--check" ] && check_only=true
here=$(cd "$(dirname "$0")/.." && pwd)
module="$here/nodes/toxiproxy"
out=${REGLAB_BIN_DIR:-$HOME/.cache/reglab/bin}
version=$(awk '$1 == "require" && $2 == "github.com/Shopify/toxiproxy/v2" { print $3 }' "$module/go.mod")
pin=$(cat "$module/go.mod" "$module/go.sum" | sha256sum | cut -c1-16)
stamp="$out/.toxiproxy.pin"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pin" ] && [ -x "$out/toxiproxy-server" ]; then
  $check_only || echo "toxiproxy-server up to date in $out (pin $pin)"
  exit 0
fi
$check_only && exit 1
command -v go >/dev/null || { echo "Go is required to build toxiproxy-server (https://go.dev/dl)" >&2; exit 1; }
# Go's build cache where build-nodes.sh keeps it (unless GOCACHE says otherwise)
export GOCACHE="${GOCACHE:-${REGLAB_CACHE_DIR:-$HOME/.cache/reglab}/go-build}"
mkdir -p "$out" "$GOCACHE"
echo "building toxiproxy-server $version (pin $pin) into $out"
cd "$module"
# built aside, then renamed into place: a lab running the old binary is not disturbed
staging=$(mktemp -d "$out/.build-XXXXXX")
trap 'rm -rf "$staging"' EXIT
# the version is stamped at link time, as toxiproxy's own release build does (GET /version answers it)
CGO_ENABLED=0 go build -trimpath -ldflags "-X github.com/Shopify/toxiproxy/v2.Version=$version" -o "$staging/toxiproxy-server" github.com/Shopify/toxiproxy/v2/cmd/server
mv -f "$staging/toxiproxy-server" "$out/toxiproxy-server"
echo "$pin" > "$stamp"
echo "toxiproxy-server built in $out"
