#!/usr/bin/env bash
# Makes Podman's Docker-compatible API answer on unix:///run/podman/podman.sock (as root).
# Idempotent: installs podman, runc and debootstrap only when missing, rewrites containers.conf
# only when it differs, starts the API service only when the socket does not answer.
# See docs/docker-runtime.md.
set -euo pipefail

socket=${REGLAB_PODMAN_SOCKET:-/run/podman/podman.sock}
log=${REGLAB_PODMAN_LOG:-/var/log/reglab-podman-service.log}

if [ "$(id -u)" -ne 0 ]; then
  echo "podman-setup.sh must run as root (rootful Podman serves the Docker API used by reglab)" >&2
  exit 1
fi

# catatonit is the init Podman gives containers started with HostConfig.Init; the dnsname CNI
# plugin lets containers on one lab network reach each other by name.
packages=(podman runc debootstrap curl catatonit golang-github-containernetworking-plugin-dnsname)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

# Two settings are required on these hosts: the default nofile ulimit (1048576) cannot be
# applied ("setrlimit RLIMIT_NOFILE: Operation not permitted"), and crun refuses the host's
# hybrid cgroups, so runc is used.
conf=/etc/containers/containers.conf
wanted='[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"'
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$wanted" ]; then
  if [ -f "$conf" ]; then
    cp "$conf" "$conf.reglab-backup"
    echo "saved the previous $conf as $conf.reglab-backup"
  fi
  mkdir -p /etc/containers
  printf '%s\n' "$wanted" > "$conf"
  echo "wrote $conf"
fi

answers() {
  curl -sf --max-time 3 --unix-socket "$socket" http://d/_ping >/dev/null 2>&1
}

# A service started from a folder since removed (a clone of an earlier run) still answers, but
# every container it starts fails (conmon: "Failed to get working directory"): it is restarted.
for pid in $(pgrep -f "podman system service .*unix://$socket" || true); do
  if readlink "/proc/$pid/cwd" | grep -q ' (deleted)$'; then
    echo "restarting podman system service $pid: its working directory was removed"
    kill "$pid"
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
done

if answers; then
  echo "Podman's Docker API answers on unix://$socket"
  exit 0
fi

mkdir -p "$(dirname "$socket")"
rm -f "$socket"
echo "starting podman system service on unix://$socket (log: $log)"
# from / so that no folder of this run is its working directory; exec'd, so no shell is left
# waiting on it with this script's output open (a caller piping it, `| tee`, would never see EOF)
(cd / && exec nohup podman system service --time=0 "unix://$socket" </dev/null >>"$log" 2>&1) &
for _ in $(seq 1 60); do
  if answers; then
    echo "Podman's Docker API answers on unix://$socket"
    echo "use it with: export DOCKER_HOST=unix://$socket"
    exit 0
  fi
  sleep 0.5
done
echo "podman system service did not answer on unix://$socket within 30 s; see $log" >&2
exit 1
