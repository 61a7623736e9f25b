// Command pause is the test cluster's sandbox (pause) image: the process that holds a pod's
// namespaces. No registry here serves registry.k8s.io/pause, so it is built locally. Like the
// upstream pause, it sleeps until told to stop and, as PID 1 of a pod that shares its process
// namespace, reaps the orphans handed to it.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		reapChildren()
	}
}

func reapChildren() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
