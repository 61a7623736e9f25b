//go:build tools

// Package kubernetes pins the binaries of the test cluster (scripts/test-cluster.sh): the
// Kubernetes components and kubectl of k8s.io/kubernetes, and etcd (through ./cmd/etcd) at the
// version that Kubernetes release itself requires.
package kubernetes

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
