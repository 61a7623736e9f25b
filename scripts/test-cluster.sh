#!/usr/bin/env bash
# A single-node Kubernetes on this machine, for the kubernetes runtime's tests and for trying it:
#   scripts/test-cluster.sh up                 build what is missing (scripts/build-k8s.sh), then start it
#   scripts/test-cluster.sh down [--purge]     stop it and leave nothing behind on the host
#   scripts/test-cluster.sh status             what runs; exit 0 when up, 3 when down, 1 when partly up
#   scripts/test-cluster.sh kubeconfig         print the path of its kubeconfig
#   scripts/test-cluster.sh load-image IMAGE…  copy Podman images into its containerd
#   scripts/test-cluster.sh kubectl ARGS…      the pinned kubectl, on this cluster
#   scripts/test-cluster.sh ctr ARGS…          containerd's ctr, on this cluster's k8s.io namespace
# It runs etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy (nftables),
# CoreDNS and a hostPath volume provisioner from nodes/kubernetes, on Debian's containerd, runc and
# CNI plugins. Everything listens on 127.0.0.1 or on the gateway of its own bridge (10.244.0.1), never
# on the machine's addresses. See docs/kubernetes-runtime.md, "A test cluster on this machine".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$here/nodes/kubernetes/go.mod")
bin=${REGLAB_BIN_DIR:-$HOME/.cache/reglab/bin}/k8s-$version
dir=${REGLAB_TEST_CLUSTER_DIR:-$HOME/.cache/reglab/test-cluster}

bridge=reglab-k8s0        # a name of its own: Podman has podman0, cni-podman0…
gateway=10.244.0.1        # the bridge's address: API server, kubelet, CoreDNS and NodePorts listen here
pod_cidr=10.244.0.0/16
service_cidr=10.96.0.0/16
api_service_ip=10.96.0.1  # the `kubernetes` Service, first address of the service range
node=reglab-node
domain=cluster.local
cluster=reglab-test-cluster
api_port=6443
pause_image=reglab.local/pause:$version
storage_class=reglab-hostpath
provisioner=reglab.local/hostpath

pki=$dir/pki
etc=$dir/etc
run=$dir/run          # what only lives while the cluster is up
logs=$dir/logs
socket=$run/containerd/containerd.sock
kubeconfig=$dir/kubeconfig
api=https://$gateway:$api_port
# changed by the kubelet (kernel tunables) and by the bridge plugin (forwarding); restored by `down`
sysctls=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes net.ipv4.ip_forward)
# components in start order
components=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy coredns
  hostpath-provisioner)

say() { echo "==> $*"; }
fail() {
  echo "test-cluster: $*" >&2
  exit 1
}

# ---------------------------------------------------------------- processes

pid_file() { echo "$run/pids/$1"; }

# state NAME: running, stale (running an old binary, since rebuilt), or stopped
state() {
  local pid exe
  read -r pid exe 2>/dev/null <"$(pid_file "$1")" || { echo stopped; return; }
  case "$(readlink "/proc/$pid/exe" 2>/dev/null)" in
    "$exe") echo running ;;
    "$exe (deleted)") echo stale ;;
    *) echo stopped ;;
  esac
}

pid_of() { cut -d' ' -f1 "$(pid_file "$1")"; }

# launch NAME BINARY ARGS...: starts a daemon in its own session, its output in $logs/NAME.log.
# It does not carry the test run's marker (REGLAB_PROCESS_REGISTRY): the cluster outlives test runs,
# and a run that started it takes it down with `down`, which a reaper's kill -9 could not do cleanly.
launch() {
  local name=$1 binary=$2
  shift 2
  echo "--- started $(date -u +%FT%TZ)" >>"$logs/$name.log"
  # A daemon keeps no descriptor of its caller's: fd 9 holds this script's lock, and a lock or pipe
  # of whoever ran `up` (`flock … npm test`, a test runner's output) would stay held for as long as
  # the cluster runs, blocking every later up and down, or a wait on that pipe.
  (
    for fd in $(ls /proc/"$BASHPID"/fd); do
      [ "$fd" -gt 2 ] && eval "exec $fd>&-"
    done
    exec env -u REGLAB_PROCESS_REGISTRY setsid "$binary" "$@"
  ) </dev/null >>"$logs/$name.log" 2>&1 &
  # the subshell and setsid exec without forking (it is not a group leader), so $! is the daemon itself
  echo "$! $(readlink -f "$binary")" >"$(pid_file "$name")"
}

# stop NAME...: SIGTERM to each, then SIGKILL to those still running 15 s later
stop() {
  local name pid pids=() names=()
  for name in "$@"; do
    if [ "$(state "$name")" = stopped ]; then
      rm -f "$(pid_file "$name")"
      continue
    fi
    pid=$(pid_of "$name")
    kill "$pid" 2>/dev/null || true
    pids+=("$pid")
    names+=("$name")
  done
  local index
  for index in "${!pids[@]}"; do
    pid=${pids[index]}
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -9 "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$(pid_file "${names[index]}")"
    echo "stopped ${names[index]}"
  done
}

# wait_until DESCRIPTION SECONDS LOG COMMAND...: polls COMMAND until it succeeds; on timeout shows the log.
wait_until() {
  local description=$1 seconds=$2 log=$3
  shift 3
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "test-cluster: $description did not happen within $seconds s; the end of $log:" >&2
      tail -n 30 "$log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}

kubectl() { "$bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
ctr() { command ctr --address "$socket" --namespace k8s.io "$@"; }
api_ready() { curl -sf --max-time 3 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "$api/readyz"; }
healthy() { curl -sfk --max-time 3 "$1"; }

# ---------------------------------------------------------------- host

require_host() {
  [ "$(id -u)" -eq 0 ] || fail "must run as root (it runs a kubelet, containerd and a bridge)"
  local packages=(containerd runc containernetworking-plugins iptables nftables iproute2 curl openssl) missing=()
  local package
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep 'install ok installed' >/dev/null || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# Records, once per bring-up, what `down` must put back: sysctls, the netfilter tables and the host
# folders that existed before.
save_host() {
  [ -f "$run/host" ] && return
  {
    local key
    for key in "${sysctls[@]}"; do echo "sysctl $key $(sysctl -n "$key")"; done
    nft list tables
    local folder
    for folder in /var/lib/kubelet /var/lib/cni /run/containerd; do [ -e "$folder" ] && echo "folder $folder"; done
  } >"$run/host.tmp"
  mv "$run/host.tmp" "$run/host"
}

# containerd 1.6 pins each sandbox's network namespace at /run/netns/cni-*. Podman (and `ip netns`)
# bind-mount /run/netns onto itself when it is not a mount point yet: done after our namespaces were
# pinned, that hides them, and neither containerd nor `down` can unmount them any more. Made a
# shared mount point first, /run/netns is left as it is by Podman.
make_netns_mount() {
  mountpoint -q /run/netns && return
  mkdir -p /run/netns
  mount --bind /run/netns /run/netns
  mount --make-shared /run/netns
  echo 'made /run/netns' >>"$run/host"
}

make_bridge() {
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
  fi
  ip addr show dev "$bridge" | grep "inet $gateway/" >/dev/null || ip addr add "$gateway/16" dev "$bridge"
  ip link set "$bridge" up
  # pods reach Services through the gateway: DNAT there, then routed back onto the bridge
  sysctl -qw net.ipv4.ip_forward=1
}

# ---------------------------------------------------------------- certificates

# cert NAME SUBJECT EXTENSIONS: a key and a certificate signed by the cluster's CA, unless present.
cert() {
  local name=$1 subject=$2 extensions=$3
  [ -f "$pki/$name.crt" ] && return
  openssl genrsa -out "$pki/$name.key" 2048 2>/dev/null
  openssl req -new -key "$pki/$name.key" -subj "$subject" -out "$pki/$name.csr" 2>/dev/null
  printf '%s\n' "$extensions" >"$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -sha256 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}

make_certificates() {
  mkdir -p "$pki"
  chmod 700 "$pki"
  if [ ! -f "$pki/ca.crt" ]; then
    say "making the cluster's certificates (openssl, a few seconds)"
    openssl genrsa -out "$pki/ca.key" 2048 2>/dev/null
    openssl req -x509 -new -key "$pki/ca.key" -subj "/CN=$cluster-ca" -days 3650 -sha256 -out "$pki/ca.crt"
  fi
  local client='keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'
  local server='keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth'
  cert apiserver "/CN=kube-apiserver" "$server
subjectAltName=IP:127.0.0.1,IP:$api_service_ip,IP:$gateway,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.$domain"
  cert kubelet "/CN=$node" "$server
subjectAltName=IP:$gateway,DNS:$node"
  cert admin "/O=system:masters/CN=$cluster-admin" "$client"
  cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client"
  cert kube-controller-manager "/CN=system:kube-controller-manager" "$client"
  cert kube-scheduler "/CN=system:kube-scheduler" "$client"
  cert kube-proxy "/CN=system:kube-proxy" "$client"
  cert kubelet-client "/O=system:nodes/CN=system:node:$node" "$client"
  if [ ! -f "$pki/sa.key" ]; then
    openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  fi
}

# write_kubeconfig FILE CERT: a kubeconfig for the API server with the client certificate CERT.
write_kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $cluster
  cluster:
    server: $api
    certificate-authority-data: $(base64 -w0 "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 "$pki/$2.crt")
    client-key-data: $(base64 -w0 "$pki/$2.key")
contexts:
- name: $cluster
  context:
    cluster: $cluster
    user: $2
current-context: $cluster
EOF
  chmod 600 "$1"
}

# ---------------------------------------------------------------- configuration

write_configuration() {
  mkdir -p "$etc/cni" "$etc/kubeconfigs"
  write_kubeconfig "$kubeconfig" admin
  local component
  for component in kube-controller-manager kube-scheduler kube-proxy; do
    write_kubeconfig "$etc/kubeconfigs/$component.conf" "$component"
  done
  write_kubeconfig "$etc/kubeconfigs/kubelet.conf" kubelet-client

  # containerd 1.6's CRI plugin. Its own root, state, socket and CNI folder keep it apart from
  # Podman. restrict_oom_score_adj: root lacks CAP_SYS_RESOURCE here, and runc fails to create
  # sandboxes ("can't get final child's PID from pipe: EOF") when asked to lower an OOM score.
  cat >"$etc/containerd.toml" <<EOF
version = 2
root = "$dir/containerd"
state = "$run/containerd/state"
[grpc]
  address = "$socket"
[ttrpc]
  address = "$socket.ttrpc"
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$etc/cni"
    max_conf_num = 1
EOF

  # Pods get routes to the pod and Service networks only, no default route, and no masquerading:
  # their traffic cannot leave this machine. No portmap (hostPort) either: nothing of the cluster's
  # in the host's iptables but what the kubelet insists on.
  cat >"$etc/cni/10-$cluster.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$cluster",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "hairpinMode": true,
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$pod_cidr", "gateway": "$gateway" }]],
        "routes": [{ "dst": "$service_cidr" }],
        "dataDir": "$run/cni-ipam"
      }
    }
  ]
}
EOF

  # pods whose dnsPolicy is Default ask CoreDNS too, never the machine's resolver
  echo "nameserver $gateway" >"$etc/resolv.conf"

  # cgroup v1 without systemd on these hosts: cgroupfs, and failCgroupV1 off. Image garbage
  # collection is off: the images were loaded by hand and no registry could bring them back.
  cat >"$etc/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $gateway
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: $pki/ca.crt
authorization:
  mode: Webhook
tlsCertFile: $pki/kubelet.crt
tlsPrivateKeyFile: $pki/kubelet.key
containerRuntimeEndpoint: unix://$socket
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
clusterDNS:
- $gateway
clusterDomain: $domain
resolvConf: $etc/resolv.conf
maxPods: 250
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
EOF

  # Zero conntrack settings keep kube-proxy from writing sysctls. NodePorts answer on the gateway only.
  cat >"$etc/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $etc/kubeconfigs/kube-proxy.conf
hostnameOverride: $node
mode: nftables
clusterCIDR: $pod_cidr
bindAddress: $gateway
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses:
- $gateway/32
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
EOF

  # CoreDNS answers for the cluster's names only: there is no network beyond this machine to forward to.
  cat >"$etc/Corefile" <<EOF
.:53 {
    bind $gateway
    ready 127.0.0.1:10253
    errors
    cache 30
    kubernetes $domain in-addr.arpa ip6.arpa {
        kubeconfig $kubeconfig $cluster
        pods insecure
        ttl 30
    }
}
EOF
}

# ---------------------------------------------------------------- pause image

# The sandbox image, an OCI archive made here from the pause binary: no registry serves
# registry.k8s.io/pause to this machine.
import_pause_image() {
  ctr images ls -q | grep -xF "$pause_image" >/dev/null && return
  say "importing the sandbox image $pause_image"
  local work
  work=$(mktemp -d)
  mkdir -p "$work/root" "$work/layout/blobs/sha256"
  cp "$bin/pause" "$work/root/pause"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/root" -cf "$work/layer.tar" pause
  local layer config manifest
  layer=$(blob "$work" "$work/layer.tar")
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$layer" >"$work/config.json"
  config=$(blob "$work" "$work/config.json")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config" "$(stat -c %s "$work/config.json")" "$layer" "$(stat -c %s "$work/layer.tar")" >"$work/manifest.json"
  manifest=$(blob "$work" "$work/manifest.json")
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest" "$(stat -c %s "$work/manifest.json")" "$pause_image" "${pause_image##*:}" >"$work/layout/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$work/layout/oci-layout"
  tar -C "$work/layout" -cf "$work/pause.tar" .
  ctr images import "$work/pause.tar" >/dev/null
  rm -rf "$work"
}

# blob WORK FILE: copies FILE into the OCI layout's blobs and prints its sha256
blob() {
  local digest
  digest=$(sha256sum "$2" | cut -d' ' -f1)
  cp "$2" "$1/layout/blobs/sha256/$digest"
  echo "$digest"
}

# ---------------------------------------------------------------- up

start_component() {
  case "$1" in
    containerd)
      launch containerd "$(command -v containerd)" --config "$etc/containerd.toml"
      wait_until "containerd answering" 60 "$logs/containerd.log" ctr version
      import_pause_image
      ;;
    etcd)
      # no fsync: a test cluster's data is thrown away with it, and fsyncs on a busy disk slow the API
      launch etcd "$bin/etcd" --name "$cluster" --data-dir "$run/etcd" \
        --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
        --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
        --initial-cluster "$cluster=http://127.0.0.1:2380" --unsafe-no-fsync
      wait_until "etcd healthy" 60 "$logs/etcd.log" healthy http://127.0.0.1:2379/health
      ;;
    kube-apiserver)
      # exec, logs and port-forward reach the kubelet at the node's InternalIP: the node's name
      # resolves nowhere
      launch kube-apiserver "$bin/kube-apiserver" --bind-address "$gateway" --advertise-address "$gateway" \
        --secure-port "$api_port" --etcd-servers http://127.0.0.1:2379 \
        --service-cluster-ip-range "$service_cidr" --allow-privileged=true \
        --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
        --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
        --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" \
        --kubelet-client-key "$pki/apiserver-kubelet-client.key" --kubelet-certificate-authority "$pki/ca.crt" \
        --kubelet-preferred-address-types InternalIP,Hostname \
        --service-account-issuer "https://kubernetes.default.svc.$domain" \
        --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
        --profiling=false
      wait_until "the API server ready" 120 "$logs/kube-apiserver.log" api_ready
      ;;
    kube-controller-manager)
      launch kube-controller-manager "$bin/kube-controller-manager" --bind-address 127.0.0.1 \
        --kubeconfig "$etc/kubeconfigs/kube-controller-manager.conf" \
        --authentication-kubeconfig "$etc/kubeconfigs/kube-controller-manager.conf" \
        --authorization-kubeconfig "$etc/kubeconfigs/kube-controller-manager.conf" \
        --cluster-name "$cluster" --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
        --root-ca-file "$pki/ca.crt" --service-account-private-key-file "$pki/sa.key" \
        --use-service-account-credentials=true --service-cluster-ip-range "$service_cidr" \
        --leader-elect=false --profiling=false
      ;;
    kube-scheduler)
      launch kube-scheduler "$bin/kube-scheduler" --bind-address 127.0.0.1 \
        --kubeconfig "$etc/kubeconfigs/kube-scheduler.conf" \
        --authentication-kubeconfig "$etc/kubeconfigs/kube-scheduler.conf" \
        --authorization-kubeconfig "$etc/kubeconfigs/kube-scheduler.conf" \
        --leader-elect=false --profiling=false
      ;;
    kubelet)
      mkdir -p "$run/kubelet"
      launch kubelet "$bin/kubelet" --config "$etc/kubelet.yaml" --kubeconfig "$etc/kubeconfigs/kubelet.conf" \
        --root-dir "$run/kubelet" --hostname-override "$node" --node-ip "$gateway"
      ;;
    kube-proxy)
      launch kube-proxy "$bin/kube-proxy" --config "$etc/kube-proxy.yaml"
      ;;
    coredns)
      launch coredns "$bin/coredns" -conf "$etc/Corefile"
      ;;
    hostpath-provisioner)
      launch hostpath-provisioner "$bin/hostpath-provisioner" -kubeconfig "$kubeconfig" -root "$run/volumes"
      ;;
  esac
}

cluster_up() {
  local component
  for component in "${components[@]}"; do [ "$(state "$component")" = running ] || return 1; done
  api_ready >/dev/null 2>&1
}

up() {
  require_host
  mkdir -p "$run/pids" "$logs"
  exec 9>"$dir/.lock"
  flock 9
  bash "$here/scripts/build-k8s.sh"
  if cluster_up && node_ready; then
    echo "test cluster already up; kubeconfig: $kubeconfig"
    return
  fi
  say "starting the test cluster in $dir"
  local started=$SECONDS component
  save_host
  make_netns_mount
  make_bridge
  make_certificates
  write_configuration
  for component in "${components[@]}"; do
    case "$(state "$component")" in
      running) continue ;;
      stale)
        echo "restarting $component: its binary was rebuilt"
        stop "$component"
        ;;
    esac
    echo "starting $component"
    start_component "$component"
  done
  wait_until "kube-controller-manager healthy" 60 "$logs/kube-controller-manager.log" healthy https://127.0.0.1:10257/healthz
  wait_until "kube-scheduler healthy" 60 "$logs/kube-scheduler.log" healthy https://127.0.0.1:10259/healthz
  wait_until "the kubelet healthy" 60 "$logs/kubelet.log" healthy http://127.0.0.1:10248/healthz
  wait_until "node $node Ready" 120 "$logs/kubelet.log" node_ready
  wait_until "kube-proxy healthy" 60 "$logs/kube-proxy.log" healthy http://127.0.0.1:10256/healthz
  wait_until "CoreDNS ready" 60 "$logs/coredns.log" healthy http://127.0.0.1:10253/ready
  kubectl apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: $storage_class
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: $provisioner
reclaimPolicy: Delete
volumeBindingMode: Immediate
EOF
  # pods can be made in a namespace once its default ServiceAccount exists
  wait_until "the default ServiceAccount" 120 "$logs/kube-controller-manager.log" kubectl get serviceaccount default
  echo "test cluster up in $((SECONDS - started)) s; kubeconfig: $kubeconfig"
  echo "  kubectl: scripts/test-cluster.sh kubectl get nodes   (or KUBECONFIG=$kubeconfig kubectl …)"
}

node_ready() {
  [ "$(kubectl get node "$node" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

# ---------------------------------------------------------------- down

down() {
  local purge=false
  [ "${1:-}" = --purge ] && purge=true
  [ "$(id -u)" -eq 0 ] || fail "must run as root"
  mkdir -p "$dir"
  exec 9>"$dir/.lock"
  flock 9
  say "stopping the test cluster in $dir"
  local started=$SECONDS
  delete_pods
  stop kube-proxy
  nft delete table ip kube-proxy 2>/dev/null || true
  nft delete table ip6 kube-proxy 2>/dev/null || true
  # the API server's clients first: it shuts down quicker without them
  stop kube-controller-manager kube-scheduler kubelet coredns hostpath-provisioner
  stop kube-apiserver
  stop etcd
  remove_containers
  stop containerd
  kill_leftover_shims
  unmount_all
  ip link del "$bridge" 2>/dev/null || true
  remove_kubelet_chains
  remove_cgroups
  restore_host
  local left
  left=$(leftovers)
  rm -rf "$run"
  [ -d "$logs" ] && rm -rf "$dir/logs.previous" && mv "$logs" "$dir/logs.previous"
  if $purge; then
    rm -rf "$dir"
    echo "removed $dir (images, certificates, logs)"
  fi
  if [ -n "$left" ]; then
    echo "test-cluster: down left these behind:" >&2
    echo "$left" | sed 's/^/  /' >&2
    exit 1
  fi
  echo "test cluster down in $((SECONDS - started)) s"
}

# leftovers: whatever of the cluster is still on the host, one line each (nothing when down was clean)
leftovers() {
  local pid exe
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    case "$exe" in
      "$bin"/*) echo "process $pid ($exe)" ;;
      */containerd | */containerd-shim-runc-v2)
        tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -F -e "$etc/containerd.toml" -e "-address $socket " >/dev/null &&
          echo "process $pid ($exe)"
        ;;
    esac
  done
  findmnt -rn -o TARGET | awk -v dir="$dir/" -v netns=/run/netns/cni- \
    'index($0, dir) == 1 || index($0, netns) == 1 { print "mount " $0 }'
  ip link show "$bridge" >/dev/null 2>&1 && echo "interface $bridge"
  local family
  for family in ip ip6; do
    nft list table "$family" kube-proxy >/dev/null 2>&1 && echo "nftables table $family kube-proxy"
  done
  local tool table
  for tool in iptables ip6tables; do
    for table in filter nat mangle; do
      { "$tool" -t "$table" -S 2>/dev/null || true; } |
        awk -v t="$tool $table" '$1 == "-N" && $2 ~ /^KUBE-/ { print t " chain " $2 }'
    done
  done
  local cgroup
  for cgroup in /sys/fs/cgroup/*/kubepods; do [ ! -d "$cgroup" ] || echo "cgroup $cgroup"; done
  if [ -f "$run/host" ]; then
    local kind key value
    while read -r kind key value; do
      [ "$kind" = sysctl ] && [ "$(sysctl -n "$key")" != "$value" ] && echo "sysctl $key=$(sysctl -n "$key") (was $value)"
    done <"$run/host"
  fi
  return 0
}

# Pods are deleted while the kubelet still runs, so that it tears down their network (CNI DEL) and
# their containers. The controllers are stopped first, so that nothing makes new ones.
delete_pods() {
  [ "$(state kube-apiserver)" = running ] && [ "$(state kubelet)" = running ] && api_ready >/dev/null 2>&1 || return 0
  stop kube-controller-manager kube-scheduler
  local count
  count=$(kubectl get pods -A --no-headers 2>/dev/null | wc -l) || count=0
  [ "$count" -gt 0 ] || return 0
  echo "deleting $count pod(s)"
  kubectl delete pods -A --all --grace-period=1 --wait=true --timeout=60s >/dev/null 2>&1 || true
  # the kubelet stops a pod's sandbox (and releases its network) before the pod is gone from the API
  local deadline=$((SECONDS + 60))
  while [ -n "$(ctr tasks ls -q 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
}

# What the kubelet did not get to: containers killed, removed with their network namespaces.
remove_containers() {
  [ "$(state containerd)" = running ] || return 0
  local id
  for id in $(ctr tasks ls -q 2>/dev/null); do
    ctr tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    ctr tasks delete -f "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr containers ls -q 2>/dev/null); do ctr containers rm "$id" >/dev/null 2>&1 || true; done
}

# shims outlive containerd by design; only those serving this cluster's socket are ended
kill_leftover_shims() {
  local pid
  for pid in $(pgrep -f containerd-shim-runc-v2 || true); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -F -- "-address $socket " >/dev/null && kill -9 "$pid" 2>/dev/null || true
  done
}

# The kubelet bind-mounts its root folder and pods' volumes, containerd mounts rootfs overlays and
# shm, and the CRI plugin pins each sandbox's network namespace under /run/netns/cni-*.
unmount_all() {
  local target
  findmnt -rn -o TARGET | awk -v dir="$dir/" -v netns=/run/netns/cni- \
    'index($0, dir) == 1 || index($0, netns) == 1' | sort -r | while read -r target; do
    target=$(printf '%b' "$target") # findmnt escapes spaces as \x20
    umount "$target" 2>/dev/null || umount -l "$target" 2>/dev/null || true
    case "$target" in /run/netns/cni-*) rm -f "$target" 2>/dev/null || true ;; esac
  done
  # the /run/netns mount `up` made, unless others' namespaces (Podman's) now live under it
  if grep -qx 'made /run/netns' "$run/host" 2>/dev/null && mountpoint -q /run/netns &&
    ! findmnt -rn -o TARGET | grep '^/run/netns/' >/dev/null; then
    umount /run/netns 2>/dev/null || true
  fi
}

# The kubelet makes these iptables chains even with kube-proxy in nftables mode.
remove_kubelet_chains() {
  local tool table rule chain
  for tool in iptables ip6tables; do
    command -v "$tool" >/dev/null || continue
    for table in filter nat mangle; do
      { "$tool" -t "$table" -S 2>/dev/null || true; } | { grep -E '^-A [A-Z-]+ .*-j KUBE-' || true; } |
        sed 's/^-A/-D/' | while read -r rule; do
          eval "$tool -t $table $rule" 2>/dev/null || true
        done
      for chain in $("$tool" -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ { print $2 }'); do
        "$tool" -t "$table" -F "$chain" 2>/dev/null || true
      done
      for chain in $("$tool" -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ { print $2 }'); do
        "$tool" -t "$table" -X "$chain" 2>/dev/null || true
      done
    done
  done
  # a table that was not there before and holds no rule now was made for those chains
  [ -f "$run/host" ] || return 0
  local family name
  nft list tables | while read -r _ family name; do
    grep -qxF "table $family $name" "$run/host" && continue
    [ "$family" = ip ] || [ "$family" = ip6 ] || continue
    # only its declaration, chains, their hooks and braces: no rule
    nft list table "$family" "$name" | grep -vE '^\s*(table |chain |type |\}|$)' >/dev/null \
      || nft delete table "$family" "$name"
  done
}

# The kubelet makes a kubepods tree in every cgroup v1 hierarchy; runc leaves no process in it now.
remove_cgroups() {
  local root
  for root in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$root" ] && find "$root" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

restore_host() {
  [ -f "$run/host" ] || return 0
  local kind key value
  while read -r kind key value; do
    [ "$kind" = sysctl ] && sysctl -qw "$key=$value"
  done <"$run/host"
  # the kubelet's device-plugin folder is fixed, whatever its root folder
  grep -qx 'folder /var/lib/kubelet' "$run/host" || rm -rf /var/lib/kubelet
  grep -qx 'folder /run/containerd' "$run/host" || rm -rf /run/containerd
  if grep -qx 'folder /var/lib/cni' "$run/host"; then
    rm -f /var/lib/cni/results/"$cluster"-*
  else
    rm -rf /var/lib/cni
  fi
}

# ---------------------------------------------------------------- status and tools

status() {
  local component current up=0 total=${#components[@]}
  echo "test cluster in $dir"
  for component in "${components[@]}"; do
    current=$(state "$component")
    if [ "$current" = stopped ]; then
      printf '  %-24s stopped\n' "$component"
    else
      up=$((up + 1))
      printf '  %-24s %s (pid %s)\n' "$component" "$current" "$(pid_of "$component")"
    fi
  done
  if [ "$up" -eq 0 ]; then
    echo "down"
    return 3
  fi
  if api_ready >/dev/null 2>&1; then
    echo "  API server $api ready"
    { kubectl get nodes --no-headers 2>/dev/null || true; } | awk '{ print "  node " $1 " " $2 }'
    echo "  pods: $(kubectl get pods -A --no-headers 2>/dev/null | wc -l)   kubeconfig: $kubeconfig"
  else
    echo "  API server $api not answering"
  fi
  if [ "$up" -eq "$total" ] && node_ready; then
    echo "up"
    return 0
  fi
  echo "partly up: scripts/test-cluster.sh up starts what is missing"
  return 1
}

# load_image IMAGE...: Podman's images into the cluster's containerd, under the names Podman gives them
load_image() {
  [ $# -gt 0 ] || { echo "usage: scripts/test-cluster.sh load-image IMAGE..." >&2; exit 2; }
  [ "$(state containerd)" = running ] || fail "the test cluster is not up: scripts/test-cluster.sh up"
  local image name archive
  for image in "$@"; do
    name=$(podman image inspect --format '{{index .RepoTags 0}}' "$image" 2>/dev/null) ||
      { echo "test-cluster: no Podman image $image (podman images lists them)" >&2; exit 3; }
    archive=$(mktemp "$dir/.image-XXXXXX.tar")
    podman save --quiet --format oci-archive -o "$archive" "$name" >/dev/null 2>&1 ||
      { rm -f "$archive"; fail "podman save $name failed"; }
    # Podman names the image in the archive in full (localhost/NAME:TAG), and ctr keeps full names
    ctr images import "$archive" >/dev/null || { rm -f "$archive"; fail "importing $name failed"; }
    rm -f "$archive"
    ctr images ls -q | grep -xF "$name" >/dev/null || fail "containerd did not list $name after importing it"
    echo "loaded $name"
  done
}

case "${1:-}" in
  up) up ;;
  down) down "${2:-}" ;;
  status) status ;;
  kubeconfig) echo "$kubeconfig" ;;
  load-image) shift; load_image "$@" ;;
  # exec'd: a caller that stops a long-running one (port-forward, logs -f) stops kubectl itself
  kubectl) shift; exec "$bin/kubectl" --kubeconfig "$kubeconfig" "$@" ;;
  ctr) shift; exec ctr --address "$socket" --namespace k8s.io "$@" ;;
  help | -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
