#!/usr/bin/env bash
# Builds the test cluster's binaries (scripts/test-cluster.sh) from the pins in nodes/kubernetes:
#   nodes/kubernetes/go.mod          kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
#                                    kube-proxy and kubectl of k8s.io/kubernetes; etcd at the version
#                                    that release requires; the pause program of the sandbox image; the
#                                    cluster's volume provisioner (cmd/hostpath-provisioner);
#   nodes/kubernetes/coredns/go.mod  CoreDNS with the plugins the cluster's Corefile uses.
# They land in $REGLAB_BIN_DIR/k8s-<version> (default ~/.cache/reglab/bin/k8s-v1.36.3), and each group
# is rebuilt only when its pin changes: a stamp file records the hash of the sources it was built from.
# Two cores take 15 to 25 minutes the first time (kube-apiserver is most of it), seconds after.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
module="$here/nodes/kubernetes"
version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$module/go.mod")
[ -n "$version" ] || { echo "no k8s.io/kubernetes requirement in $module/go.mod" >&2; exit 1; }
out=${REGLAB_BIN_DIR:-$HOME/.cache/reglab/bin}/k8s-$version
command -v go >/dev/null || { echo "Go is required to build the test cluster (https://go.dev/dl)" >&2; exit 1; }
mkdir -p "$out"
# the progress lines below run in the background: ended with the script, however it ends
trap 'jobs -p | xargs -r kill 2>/dev/null' EXIT
trap 'exit 1' INT TERM

# Without these, every component reports version v0.0.0-master and the kubelet and API server
# disagree with kubectl about skew.
minor=${version#v1.}
minor=${minor%%.*}
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1"
ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"

# pin_of FOLDER PATHS...: hash of the files at these paths of FOLDER (a module's go.mod, go.sum and the
# sources of what is built from it) and of the build flags.
pin_of() {
  local folder=$1
  shift
  (cd "$folder" && find "$@" -type f | sort | xargs cat; echo "$ldflags") | sha256sum | cut -c1-16
}

# build_group NAME FOLDER "BINARIES" "SOURCES" DURATION PACKAGES...: builds the packages of the module
# in FOLDER into $out unless the stamp matches the pin of its go.mod, go.sum and these sources.
build_group() {
  local name=$1 folder=$2 binaries=$3 sources=$4 duration=$5
  shift 5
  local pin stamp="$out/.pin-$name" binary missing=false
  # shellcheck disable=SC2086 # the sources are a list of paths
  pin=$(pin_of "$folder" go.mod go.sum $sources)
  for binary in $binaries; do [ -x "$out/$binary" ] || missing=true; done
  if ! $missing && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pin" ]; then
    echo "$name binaries up to date in $out (pin $pin)"
    return
  fi
  echo "building $binaries (pin $pin) into $out — $duration"
  local started=$SECONDS staging ticker
  staging=$(mktemp -d "$out/.build-XXXXXX")
  # a line a minute, so that a long first build is not mistaken for a hung one
  (while sleep 60; do echo "  … still building $name ($(((SECONDS - started) / 60)) min)"; done) &
  ticker=$!
  # built aside, then renamed into place: a cluster running from the old binaries is not disturbed
  if ! (cd "$folder" && CGO_ENABLED=0 nice -n 19 go build -trimpath -ldflags="$ldflags" -o "$staging/" "$@"); then
    kill "$ticker"
    rm -rf "$staging"
    exit 1
  fi
  kill "$ticker"
  for binary in $binaries; do mv -f "$staging/$binary" "$out/$binary"; done
  rm -rf "$staging"
  echo "$pin" > "$stamp"
  echo "$name binaries built in $((SECONDS - started)) s"
}

build_group kubernetes "$module" \
  "kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl etcd pause" \
  "tools.go cmd/etcd cmd/pause" "15 to 25 minutes on two cores the first time, more on a busy machine" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy \
  k8s.io/kubernetes/cmd/kubectl ./cmd/etcd ./cmd/pause
build_group provisioner "$module" hostpath-provisioner cmd/hostpath-provisioner \
  "a minute after the Kubernetes binaries" ./cmd/hostpath-provisioner
build_group coredns "$module/coredns" coredns main.go "2 to 4 minutes the first time" .
echo "test cluster binaries ready in $out"
