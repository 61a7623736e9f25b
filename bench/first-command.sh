#!/usr/bin/env bash
# The README's first command on a fresh machine, timed from nothing to a ready default lab:
#   bash scripts/setup.sh && ./bin/reglab.js up
# A fresh machine is simulated on this one: a new clone of this checkout's commit, and empty Go
# module and build caches, npm cache, node binaries folder and reglab cache (the Debian packages
# setup.sh installs are taken as installed). Then the lab goes down, and the node binaries are built
# again (their pin stamp removed) with Go's build cache kept. Writes bench/results/first-command.json.
#   bash bench/first-command.sh        (about 5 minutes of both cores: run it on a machine left alone)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$repo" rev-parse HEAD)
scratch=$(mktemp -d /tmp/reglab-first-command.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export GOMODCACHE=$scratch/go-mod GOCACHE=$scratch/go-build npm_config_cache=$scratch/npm
export REGLAB_BIN_DIR=$scratch/bin REGLAB_CACHE_DIR=$scratch/cache
git clone -q "$repo" "$scratch/reglab"
git -C "$scratch/reglab" checkout -q "$commit"
cd "$scratch/reglab"

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
started=$(now)
started_iso=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log=$scratch/first-command.log
# each line with the seconds since the start, to find when each step ended
set +e
{ bash scripts/setup.sh && ./bin/reglab.js up; } 2>&1 | while IFS= read -r line; do
  printf '%.1f %s\n' "$(since "$started")" "$line"
done | tee "$log"
status=${PIPESTATUS[0]}
set -e
total=$(since "$started")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[ -x bin/reglab.js ] && [ -d dist ] && ./bin/reglab.js down >/dev/null || true
[ "$status" -eq 0 ] || { echo "the first command failed (exit $status)" >&2; exit 1; }

at() { grep -m1 -- "$1" "$log" | cut -d' ' -f1; }
rm -f "$REGLAB_BIN_DIR/.pin"
rebuild_started=$(now)
bash scripts/build-nodes.sh >/dev/null
rebuild=$(since "$rebuild_started")

round() { printf '%.1f' "$1"; }
setup_done=$(at '==> set-up done')
figures=$(cat <<EOF
{"firstCommandS": $(round "$total"), "npmPackagesAndBundlesS": $(at '==> npm done'),
 "btcdAndLndBuildS": $(at '==> nodes done'), "setupS": $setup_done,
 "labUpS": $(round "$(echo "$total - $setup_done" | bc)"), "nodeBinariesAgainWithGoCacheKeptS": $(round "$rebuild")}
EOF
)
options='{"what": "bash scripts/setup.sh && ./bin/reglab.js up on a fresh clone, empty Go, npm and reglab caches (Debian packages installed)"}'
cd "$repo" && BENCH_STARTED_AT="$started_iso" BENCH_LOAD_AT_START="${load_before%% *}" \
  npx tsx bench/record.ts first-command "$figures" "$options"
