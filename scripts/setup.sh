#!/usr/bin/env bash
# Everything reglab needs on a fresh Debian machine, idempotent and quick when already done:
#   Debian packages (PostgreSQL, Redis), npm packages, the pinned btcd and lnd (built with Go) and the
#   LDK node daemon (built with cargo), cached in ~/.cache/reglab/bin per pin, and the compiled TypeScript.
# With --test it also installs what the tests drive: Debian's Electrum wallet and Chromium, Podman's
# Docker API (scripts/podman-setup.sh), schemathesis, and builds the test cluster's Kubernetes
# (scripts/build-k8s.sh; scripts/test-cluster.sh starts it when a test needs it).
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=false
[ "${1:-}" = "--test" ] && with_tests=true

# build-essential and python3: node-gyp builds rgb-lib's npm binding
packages=(postgresql redis-server build-essential python3)
# busybox-static: the one binary of the small images the test-cluster tests build FROM scratch
$with_tests && packages+=(electrum chromium busybox-static)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]} — install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "==> installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian starts its own PostgreSQL and Redis where an init system runs; the lab runs its own on free ports.

echo "==> npm packages"
# node-gyp builds against the installed Node's headers when it has them, instead of downloading them
[ -f "$(dirname "$(dirname "$(command -v node)")")/include/node/node.h" ] && export npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"
# `npm install` rather than `npm ci`, which with this machine's npm settings (lockfiles without
# registry URLs) rejected a lock that listed only this platform's optional packages. The lock pins
# every package, the optional ones of every platform included, and this install leaves it unchanged.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund --loglevel=error
fi

echo "==> node binaries (btcd, lnd)"
bash scripts/build-nodes.sh

echo "==> LDK node daemon (reglab-ldk)"
bash scripts/build-ldk.sh

echo "==> TypeScript build"
npm run --silent build

if $with_tests; then
  echo "==> Podman's Docker API"
  bash scripts/podman-setup.sh
  echo "==> schemathesis (conformance tests)"
  bash scripts/install-schemathesis.sh >/dev/null
  echo "==> the test cluster's binaries (Kubernetes, etcd, CoreDNS)"
  bash scripts/build-k8s.sh
fi
echo "==> set-up done"
