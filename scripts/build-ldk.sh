#!/usr/bin/env bash
# Builds reglab-ldk (nodes/ldk: the LDK node daemon on the pinned ldk-node) in release mode.
# The binary lands in $REGLAB_BIN_DIR (default ~/.cache/reglab/bin) and is rebuilt only when the
# crate changes: a stamp records the sha256 of nodes/ldk/Cargo.toml, Cargo.lock and src/**.
# Cargo's target folder stays in ~/.cache/reglab/cargo-target (outside the repo), so a rebuild after
# a change to the daemon's own code recompiles only the daemon, not ldk-node and its dependencies,
# and a new clone of sources it built already recompiles nothing (see below).
# Needs cargo (https://rustup.rs); every crate comes from crates.io.
# setup.sh runs it with --all or --test; otherwise a lab's bring-up runs it the first time the lab
# has an ldk node (control-plane/src/nodes/binary-build.ts), after asking with --check: exit 0 when
# the binary is up to date, 1 when it needs a build, nothing printed.
set -euo pipefail
check_only=false
[ "${1:-}" = "--check" ] && check_only=true
here=$(cd "$(dirname "$0")/.." && pwd)
crate="$here/nodes/ldk"
out=${REGLAB_BIN_DIR:-$HOME/.cache/reglab/bin}
target=${REGLAB_CARGO_TARGET_DIR:-$HOME/.cache/reglab/cargo-target}
pin=$(cd "$crate" && { cat Cargo.toml Cargo.lock; find src -type f | LC_ALL=C sort | xargs cat; } | sha256sum | cut -c1-16)
stamp="$out/.reglab-ldk.pin"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pin" ] && [ -x "$out/reglab-ldk" ]; then
  $check_only || echo "reglab-ldk up to date in $out (pin $pin)"
  exit 0
fi
$check_only && exit 1
if ! command -v cargo >/dev/null; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null || { echo "cargo is required to build reglab-ldk: install Rust with https://rustup.rs" >&2; exit 1; }
mkdir -p "$out" "$target"
echo "building reglab-ldk (pin $pin) into $out — about 6 minutes on 2 idle cores the first time"
# Cargo tells a changed file by its time, so a new clone of the same sources (a CI checkout) would
# compile the daemon's crate again. The target folder records the pin of the sources it last built,
# with the time that build began: when it is this pin, the sources are given that time back, and
# cargo finds the crate up to date. The record is taken away while cargo runs, and written only once
# a build succeeded.
built="$target/.reglab-ldk.sources-pin"
next=$(mktemp "$target/.reglab-ldk.sources-pin.XXXXXX")
trap 'rm -f "$next"' EXIT
echo "$pin" > "$next"
if [ -f "$built" ] && [ "$(cat "$built")" = "$pin" ]; then
  touch -r "$built" "$crate/Cargo.toml" "$crate/Cargo.lock"
  find "$crate/src" -type f -exec touch -r "$built" {} +
  # cargo compiles nothing now: the record keeps the time of the build that did
  touch -r "$built" "$next"
fi
rm -f "$built"
CARGO_TARGET_DIR="$target" cargo build --release --locked --manifest-path "$crate/Cargo.toml"
mv -f "$next" "$built"
# Copy to a temporary name, then rename: a running daemon keeps its old file, readers never see half a binary.
cp "$target/release/reglab-ldk" "$out/.reglab-ldk.tmp"
mv -f "$out/.reglab-ldk.tmp" "$out/reglab-ldk"
echo "$pin" > "$stamp"
echo "reglab-ldk built in $out"
