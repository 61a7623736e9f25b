// Command etcd is etcd's server, built from the go.etcd.io/etcd/server/v3 module that
// k8s.io/kubernetes pins, since etcd publishes no main package of its own as a Go module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
