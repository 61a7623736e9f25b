//go:build tools

// Package nodes pins the node binaries the lab runs: btcd, btcctl, lnd and lncli.
package nodes

import (
	_ "github.com/btcsuite/btcd"
	_ "github.com/btcsuite/btcd/cmd/btcctl"
	_ "github.com/lightningnetwork/lnd/cmd/lncli"
	_ "github.com/lightningnetwork/lnd/cmd/lnd"
)
