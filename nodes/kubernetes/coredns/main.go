// Command coredns is CoreDNS with only the plugins the test cluster's Corefile uses
// (scripts/test-cluster.sh): Services and pods are found by name through the kubernetes plugin.
// The full plugin set would pull in every cloud provider's SDK for nothing.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

// directives lists the linked plugins in CoreDNS's execution order (its plugin.cfg).
var directives = []string{"bind", "ready", "errors", "cache", "kubernetes"}

func main() {
	if err := dnsserver.SetDirectives(directives); err != nil {
		panic(err)
	}
	coremain.Run()
}
