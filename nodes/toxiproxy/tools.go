//go:build tools

// Package toxiproxy pins Toxiproxy, the TCP proxy a lab with network faults puts on its links
// (docs/network-faults.md). A module of its own, so that its pin moves apart from btcd's and lnd's.
package toxiproxy

import (
	_ "github.com/Shopify/toxiproxy/v2/cmd/server"
)
