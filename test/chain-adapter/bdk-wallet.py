"""A real Esplora client for the adapter's tests: a BDK wallet (bdkpython) that syncs through
EsploraClient and spends. Prints one JSON object per command on stdout.

  bdk-wallet.py new
  bdk-wallet.py sync  MNEMONIC API_URL
  bdk-wallet.py spend MNEMONIC API_URL DEST_ADDRESS AMOUNT_SAT
"""
import json
import sys

import bdkpython as bdk

NETWORK = bdk.Network.REGTEST
KEYS = bdk.NetworkKind.TEST  # regtest keys are testnet keys (tprv)


def wallet_of(mnemonic: str) -> bdk.Wallet:
    key = bdk.DescriptorSecretKey(KEYS, bdk.Mnemonic.from_string(mnemonic), None)
    external = bdk.Descriptor.new_bip84(key, bdk.KeychainKind.EXTERNAL, KEYS)
    internal = bdk.Descriptor.new_bip84(key, bdk.KeychainKind.INTERNAL, KEYS)
    return bdk.Wallet(external, internal, NETWORK, bdk.Persister.new_in_memory())


def synced(mnemonic: str, url: str):
    wallet = wallet_of(mnemonic)
    client = bdk.EsploraClient(url)
    update = client.full_scan(wallet.start_full_scan().build(), 10, 1)
    wallet.apply_update(update)
    return wallet, client


def describe(wallet: bdk.Wallet, client: bdk.EsploraClient) -> dict:
    balance = wallet.balance()
    return {
        "confirmed_sat": balance.confirmed.to_sat(),
        "pending_sat": balance.trusted_pending.to_sat() + balance.untrusted_pending.to_sat(),
        "tip_height": wallet.latest_checkpoint().height,
        "server_height": client.get_height(),
        "txs": sorted(
            [{"txid": str(tx.transaction.compute_txid()), "confirmed": tx.chain_position.is_confirmed()} for tx in wallet.transactions()],
            key=lambda item: item["txid"],
        ),
        "fee_estimates": {str(k): v for k, v in client.get_fee_estimates().items()},
    }


def main() -> None:
    command = sys.argv[1]
    if command == "new":
        mnemonic = str(bdk.Mnemonic(bdk.WordCount.WORDS12))
        address = wallet_of(mnemonic).reveal_next_address(bdk.KeychainKind.EXTERNAL).address
        print(json.dumps({"mnemonic": mnemonic, "address": str(address)}))
    elif command == "sync":
        wallet, client = synced(sys.argv[2], sys.argv[3])
        print(json.dumps(describe(wallet, client)))
    elif command == "spend":
        wallet, client = synced(sys.argv[2], sys.argv[3])
        destination = bdk.Address(sys.argv[4], NETWORK).script_pubkey()
        psbt = (
            bdk.TxBuilder()
            .add_recipient(destination, bdk.Amount.from_sat(int(sys.argv[5])))
            .fee_rate(bdk.FeeRate.from_sat_per_vb(2))
            .finish(wallet)
        )
        if not wallet.sign(psbt):
            raise SystemExit("the wallet could not sign its own transaction")
        tx = psbt.extract_tx()
        client.broadcast(tx)
        print(json.dumps({"txid": str(tx.compute_txid())}))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
