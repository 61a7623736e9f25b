#!/usr/bin/env bash
# Everything reglab needs on a fresh Debian machine, idempotent and quick when already done:
#   Debian packages (PostgreSQL, Redis), npm packages and the bundled programs, and the pinned btcd
#   and lnd (built with Go), cached in ~/.cache/reglab/bin per pin. The npm packages install while
#   Go builds: the Go build is the long part, and the two share nothing.
# The LDK node daemon (built with cargo, several minutes) and Toxiproxy (built with Go, the proxy of a
# lab with network faults) are built the first time a lab that runs them comes up, or here with --all
# or --test.
#   bash scripts/setup.sh           what the default lab needs
#   bash scripts/setup.sh --all     also the LDK node daemon and Toxiproxy now
#   bash scripts/setup.sh --test    also what the tests drive: the LDK node daemon, Toxiproxy, Debian's Electrum
#                                   wallet, Chromium and Prometheus, Podman's Docker API, schemathesis, and the test
#                                   cluster's Kubernetes (scripts/build-k8s.sh; scripts/test-cluster.sh
#                                   starts it when a test needs it)
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=false
with_on_demand=false
for option in "$@"; do
  case "$option" in
    --test) with_tests=true with_on_demand=true ;;
    --all) with_on_demand=true ;;
    *)
      echo "unknown option $option: bash scripts/setup.sh [--all] [--test]" >&2
      exit 2
      ;;
  esac
done

# build-essential and python3: node-gyp builds rgb-lib's npm binding
packages=(postgresql redis-server build-essential python3)
# busybox-static: the one binary of the small images the test-cluster tests build FROM scratch;
# prometheus: the scraper test/control-plane/prometheus.test.ts reads the lab's metrics with
$with_tests && packages+=(electrum chromium busybox-static prometheus)
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

# The npm packages are installed once per package-lock.json (and Node version, for the addons built
# against it) and kept in ~/.cache/reglab/node-modules, the last three locks' sets: a clone with the
# same lock gets a copy of them (a copy, not links: nothing done in one tree reaches the kept set),
# seconds where an install takes a minute. node_modules/.reglab-lock says what it was installed from.
npm_cache="${REGLAB_CACHE_DIR:-$HOME/.cache/reglab}/node-modules"

npm_packages_and_build() {
  local lock stamp=node_modules/.reglab-lock kept node_prefix
  # node-gyp builds against the installed Node's headers when it has them, instead of downloading them
  node_prefix=$(dirname "$(dirname "$(command -v node)")")
  [ -f "$node_prefix/include/node/node.h" ] && export npm_config_nodedir="$node_prefix"
  lock="$(sha256sum package-lock.json | cut -c1-16)-node$(node -p 'process.versions.modules + process.arch')"
  kept="$npm_cache/$lock"
  if [ "$(cat "$stamp" 2>/dev/null)" = "$lock" ]; then
    : # installed from this lock
  elif [ -f "$kept/.reglab-lock" ]; then
    rm -rf node_modules
    cp -a "$kept" node_modules
    # rgb-lib's addon finds its library by the absolute path of the folder it was built in (its
    # RUNPATH), gone with the tree it was installed in: relinked here, it names this tree's copy
    npm rebuild @rgb-tools/rgb-lib-linux-x64 --loglevel=error
    # the rebuild changed no package: npm's record of what it installed stays true, newer than the
    # folder the rebuild touched (the image builder trusts the record only then, else runs `npm ls`)
    touch node_modules/.package-lock.json
    echo "npm packages copied from $kept"
  else
    # `npm install` rather than `npm ci`, which with this machine's npm settings (lockfiles without
    # registry URLs) rejected a lock that listed only this platform's optional packages. The lock pins
    # every package, the optional ones of every platform included, and this install leaves it unchanged.
    npm install --no-audit --no-fund --loglevel=error
    echo "$lock" >"$stamp"
    # kept whole or not at all: a copy is taken in a folder of its own, then renamed into place
    mkdir -p "$npm_cache"
    rm -rf "$kept.partial.$$"
    cp -a node_modules "$kept.partial.$$" && mv -T "$kept.partial.$$" "$kept" 2>/dev/null || rm -rf "$kept.partial.$$"
    find "$npm_cache" -mindepth 1 -maxdepth 1 -printf '%T@ %p\n' | sort -rn | tail -n +4 | cut -d' ' -f2- |
      while read -r old; do rm -rf "$old"; done
  fi
  # esbuild bundles each program from the TypeScript sources; `npm test` type-checks them
  npm run --silent build
}

# Runs a step in the background, each of its output lines prefixed with its name, so that two steps
# running at once stay readable. Its pid (that of its own process group: job control is on) is a key of steps.
set -m
declare -A steps=()
start_step() {
  local name=$1
  shift
  ( "$@" 2>&1 | sed -u "s/^/[$name] /" ) &
  steps[$!]=$name
}

# Waits for every step started; the first one to fail ends the others and the set-up.
wait_steps() {
  local done_pid
  while [ ${#steps[@]} -gt 0 ]; do
    if wait -n -p done_pid "${!steps[@]}"; then
      echo "==> ${steps[$done_pid]} done"
      unset "steps[$done_pid]"
    else
      echo "==> ${steps[$done_pid]} failed (its lines above)" >&2
      unset "steps[$done_pid]"
      for pid in "${!steps[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
      { wait; } 2>/dev/null || true
      exit 1
    fi
  done
}

echo "==> npm packages and the bundled programs, while Go builds btcd and lnd"
start_step npm npm_packages_and_build
start_step nodes bash scripts/build-nodes.sh
wait_steps

if $with_on_demand; then
  echo "==> LDK node daemon (reglab-ldk)"
  bash scripts/build-ldk.sh
  echo "==> Toxiproxy (network faults)"
  bash scripts/build-toxiproxy.sh
fi

if $with_tests; then
  echo "==> Podman's Docker API"
  bash scripts/podman-setup.sh
  echo "==> schemathesis (conformance tests)"
  bash scripts/install-schemathesis.sh >/dev/null
  echo "==> the test cluster's binaries (Kubernetes, etcd, CoreDNS)"
  bash scripts/build-k8s.sh
fi
echo "==> set-up done"
