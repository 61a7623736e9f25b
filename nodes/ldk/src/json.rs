//! LDK's types as the API's JSON: ids and hashes as lowercase hex, amounts as integers
//! (`_msat` or `_sat` in the name), user_channel_id as a decimal string (it is a u128).

use ldk_node::bitcoin::OutPoint;
use ldk_node::lightning::ln::types::ChannelId;
use ldk_node::lightning::routing::gossip::{ChannelInfo, ChannelUpdateInfo};
use ldk_node::payment::{ConfirmationStatus, PaymentDetails, PaymentDirection, PaymentKind, PaymentStatus};
use ldk_node::{BalanceDetails, ChannelDetails, LightningBalance, PeerDetails, PendingSweepBalance};
use serde_json::{json, Value};

pub fn hex(bytes: &[u8]) -> String {
	const DIGITS: &[u8; 16] = b"0123456789abcdef";
	let mut text = String::with_capacity(bytes.len() * 2);
	for byte in bytes {
		text.push(DIGITS[(byte >> 4) as usize] as char);
		text.push(DIGITS[(byte & 15) as usize] as char);
	}
	text
}

/// Exactly `N` bytes from hex, or None.
pub fn from_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
	let text = text.as_bytes();
	if text.len() != N * 2 {
		return None;
	}
	let digit = |c: u8| match c {
		b'0'..=b'9' => Some(c - b'0'),
		b'a'..=b'f' => Some(c - b'a' + 10),
		b'A'..=b'F' => Some(c - b'A' + 10),
		_ => None,
	};
	let mut bytes = [0u8; N];
	for (i, byte) in bytes.iter_mut().enumerate() {
		*byte = (digit(text[2 * i])? << 4) | digit(text[2 * i + 1])?;
	}
	Some(bytes)
}

pub fn outpoint(outpoint: &OutPoint) -> Value {
	json!({ "txid": outpoint.txid.to_string(), "vout": outpoint.vout })
}

/// A short channel id as block x transaction x output.
pub fn scid(id: u64) -> String {
	format!("{}x{}x{}", id >> 40, (id >> 16) & 0xff_ffff, id & 0xffff)
}

/// What the node would get of an open channel if it closed now (its side of the commitment, less
/// the commitment fee it pays as funder): LDK's own balance figure, which also counts the part of
/// the balance below the channel reserve that outbound capacity leaves out.
pub fn balance_on_close(balances: &BalanceDetails, channel_id: &ChannelId) -> Option<u64> {
	balances.lightning_balances.iter().find_map(|balance| match balance {
		LightningBalance::ClaimableOnChannelClose { channel_id: id, amount_satoshis, .. } if id == channel_id => Some(*amount_satoshis),
		_ => None,
	})
}

pub fn channel(channel: &ChannelDetails, balance_on_close_sat: Option<u64>) -> Value {
	json!({
		"channel_id": hex(&channel.channel_id.0),
		"user_channel_id": channel.user_channel_id.0.to_string(),
		"counterparty_node_id": channel.counterparty_node_id.to_string(),
		"funding_txo": channel.funding_txo.as_ref().map(outpoint),
		"short_channel_id": channel.short_channel_id.map(scid),
		"capacity_sat": channel.channel_value_sats,
		"balance_sat": balance_on_close_sat,
		"outbound_capacity_msat": channel.outbound_capacity_msat,
		"inbound_capacity_msat": channel.inbound_capacity_msat,
		"next_outbound_htlc_limit_msat": channel.next_outbound_htlc_limit_msat,
		"is_outbound": channel.is_outbound,
		"is_channel_ready": channel.is_channel_ready,
		"is_usable": channel.is_usable,
		"is_announced": channel.is_announced,
		"public": channel.is_announced,
		"confirmations": channel.confirmations,
		"confirmations_required": channel.confirmations_required,
		"force_close_spend_delay": channel.force_close_spend_delay,
		"cltv_expiry_delta": channel.cltv_expiry_delta,
		"unspendable_punishment_reserve_sat": channel.unspendable_punishment_reserve,
		"counterparty_unspendable_punishment_reserve_sat": channel.counterparty_unspendable_punishment_reserve,
		"feerate_sat_per_1000_weight": channel.feerate_sat_per_1000_weight,
	})
}

fn channel_update(update: &ChannelUpdateInfo) -> Value {
	json!({
		"enabled": update.enabled,
		"cltv_expiry_delta": update.cltv_expiry_delta,
		"fee_base_msat": update.fees.base_msat,
		"fee_proportional_millionths": update.fees.proportional_millionths,
		"htlc_minimum_msat": update.htlc_minimum_msat,
		"htlc_maximum_msat": update.htlc_maximum_msat,
		"last_update": update.last_update,
	})
}

/// A channel of the network graph; a direction without a channel update is null.
pub fn graph_channel(short_channel_id: u64, channel: &ChannelInfo) -> Value {
	json!({
		"short_channel_id": scid(short_channel_id),
		"node_one": channel.node_one.to_string(),
		"node_two": channel.node_two.to_string(),
		"capacity_sat": channel.capacity_sats,
		"one_to_two": channel.one_to_two.as_ref().map(channel_update),
		"two_to_one": channel.two_to_one.as_ref().map(channel_update),
	})
}

pub fn peer(peer: &PeerDetails) -> Value {
	json!({
		"node_id": peer.node_id.to_string(),
		"address": peer.address.to_string(),
		"is_connected": peer.is_connected,
		"is_persisted": peer.is_persisted,
	})
}

fn status(status: PaymentStatus) -> &'static str {
	match status {
		PaymentStatus::Pending => "pending",
		PaymentStatus::Succeeded => "succeeded",
		PaymentStatus::Failed => "failed",
	}
}

/// The payment hash of a payment, when it has one (on-chain payments do not).
pub fn payment_hash(payment: &PaymentDetails) -> Option<[u8; 32]> {
	match &payment.kind {
		PaymentKind::Bolt11 { hash, .. } | PaymentKind::Bolt11Jit { hash, .. } | PaymentKind::Spontaneous { hash, .. } => Some(hash.0),
		PaymentKind::Bolt12Offer { hash, .. } | PaymentKind::Bolt12Refund { hash, .. } => hash.map(|h| h.0),
		PaymentKind::Onchain { .. } => None,
	}
}

pub fn payment(payment: &PaymentDetails, failure_reason: Option<&str>) -> Value {
	let (kind, preimage, extra) = match &payment.kind {
		PaymentKind::Bolt11 { preimage, .. } => ("bolt11", *preimage, json!({})),
		PaymentKind::Bolt11Jit { preimage, .. } => ("bolt11_jit", *preimage, json!({})),
		PaymentKind::Spontaneous { preimage, .. } => ("keysend", *preimage, json!({})),
		PaymentKind::Bolt12Offer { preimage, offer_id, payer_note, quantity, .. } => (
			"bolt12_offer",
			*preimage,
			json!({ "offer_id": hex(&offer_id.0), "payer_note": payer_note.as_ref().map(|n| n.0.clone()), "quantity": quantity }),
		),
		PaymentKind::Bolt12Refund { preimage, payer_note, quantity, .. } => (
			"bolt12_refund",
			*preimage,
			json!({ "payer_note": payer_note.as_ref().map(|n| n.0.clone()), "quantity": quantity }),
		),
		PaymentKind::Onchain { txid, status } => (
			"onchain",
			None,
			match status {
				ConfirmationStatus::Confirmed { block_hash, height, .. } => {
					json!({ "txid": txid.to_string(), "confirmed": true, "block_height": height, "block_hash": block_hash.to_string() })
				},
				ConfirmationStatus::Unconfirmed => json!({ "txid": txid.to_string(), "confirmed": false }),
			},
		),
	};
	let mut value = json!({
		"id": hex(&payment.id.0),
		"kind": kind,
		"direction": match payment.direction { PaymentDirection::Inbound => "inbound", PaymentDirection::Outbound => "outbound" },
		"status": status(payment.status),
		"amount_msat": payment.amount_msat,
		"fee_paid_msat": payment.fee_paid_msat,
		"payment_hash": payment_hash(payment).map(|h| hex(&h)),
		"preimage": preimage.map(|p| hex(&p.0)),
		"updated_at": payment.latest_update_timestamp,
	});
	if payment.status == PaymentStatus::Failed {
		value["failure_reason"] = json!(failure_reason);
	}
	if let (Some(object), Some(extra)) = (value.as_object_mut(), extra.as_object()) {
		for (key, field) in extra {
			object.insert(key.clone(), field.clone());
		}
	}
	value
}

fn lightning_balance(balance: &LightningBalance) -> Value {
	match balance {
		LightningBalance::ClaimableOnChannelClose { channel_id, counterparty_node_id, amount_satoshis, transaction_fee_satoshis, .. } => json!({
			"type": "claimable_on_channel_close", "channel_id": hex(&channel_id.0), "counterparty_node_id": counterparty_node_id.to_string(),
			"amount_sat": amount_satoshis, "transaction_fee_sat": transaction_fee_satoshis,
		}),
		LightningBalance::ClaimableAwaitingConfirmations { channel_id, counterparty_node_id, amount_satoshis, confirmation_height, source } => json!({
			"type": "claimable_awaiting_confirmations", "channel_id": hex(&channel_id.0), "counterparty_node_id": counterparty_node_id.to_string(),
			"amount_sat": amount_satoshis, "confirmation_height": confirmation_height, "source": format!("{source:?}"),
		}),
		LightningBalance::ContentiousClaimable { channel_id, counterparty_node_id, amount_satoshis, timeout_height, payment_hash, .. } => json!({
			"type": "contentious_claimable", "channel_id": hex(&channel_id.0), "counterparty_node_id": counterparty_node_id.to_string(),
			"amount_sat": amount_satoshis, "timeout_height": timeout_height, "payment_hash": hex(&payment_hash.0),
		}),
		LightningBalance::MaybeTimeoutClaimableHTLC { channel_id, counterparty_node_id, amount_satoshis, claimable_height, payment_hash, .. } => json!({
			"type": "maybe_timeout_claimable_htlc", "channel_id": hex(&channel_id.0), "counterparty_node_id": counterparty_node_id.to_string(),
			"amount_sat": amount_satoshis, "claimable_height": claimable_height, "payment_hash": hex(&payment_hash.0),
		}),
		LightningBalance::MaybePreimageClaimableHTLC { channel_id, counterparty_node_id, amount_satoshis, expiry_height, payment_hash } => json!({
			"type": "maybe_preimage_claimable_htlc", "channel_id": hex(&channel_id.0), "counterparty_node_id": counterparty_node_id.to_string(),
			"amount_sat": amount_satoshis, "expiry_height": expiry_height, "payment_hash": hex(&payment_hash.0),
		}),
		LightningBalance::CounterpartyRevokedOutputClaimable { channel_id, counterparty_node_id, amount_satoshis } => json!({
			"type": "counterparty_revoked_output_claimable", "channel_id": hex(&channel_id.0), "counterparty_node_id": counterparty_node_id.to_string(),
			"amount_sat": amount_satoshis,
		}),
	}
}

fn pending_sweep(balance: &PendingSweepBalance) -> Value {
	match balance {
		PendingSweepBalance::PendingBroadcast { channel_id, amount_satoshis } => json!({
			"status": "pending_broadcast", "channel_id": channel_id.map(|c| hex(&c.0)), "amount_sat": amount_satoshis,
		}),
		PendingSweepBalance::BroadcastAwaitingConfirmation { channel_id, latest_broadcast_height, latest_spending_txid, amount_satoshis } => json!({
			"status": "broadcast_awaiting_confirmation", "channel_id": channel_id.map(|c| hex(&c.0)), "amount_sat": amount_satoshis,
			"broadcast_height": latest_broadcast_height, "txid": latest_spending_txid.to_string(),
		}),
		PendingSweepBalance::AwaitingThresholdConfirmations { channel_id, latest_spending_txid, confirmation_height, amount_satoshis, .. } => json!({
			"status": "awaiting_threshold_confirmations", "channel_id": channel_id.map(|c| hex(&c.0)), "amount_sat": amount_satoshis,
			"confirmation_height": confirmation_height, "txid": latest_spending_txid.to_string(),
		}),
	}
}

pub fn balances(balances: &BalanceDetails, channels: &[ChannelDetails]) -> Value {
	json!({
		"onchain": {
			"total_sat": balances.total_onchain_balance_sats,
			"spendable_sat": balances.spendable_onchain_balance_sats,
			"anchor_reserve_sat": balances.total_anchor_channels_reserve_sats,
		},
		"lightning": {
			"total_sat": balances.total_lightning_balance_sats,
			"outbound_msat": channels.iter().filter(|c| c.is_usable).map(|c| c.outbound_capacity_msat).sum::<u64>(),
			"inbound_msat": channels.iter().filter(|c| c.is_usable).map(|c| c.inbound_capacity_msat).sum::<u64>(),
		},
		"channels": channels.iter().map(|c| json!({
			"channel_id": hex(&c.channel_id.0),
			"user_channel_id": c.user_channel_id.0.to_string(),
			"counterparty_node_id": c.counterparty_node_id.to_string(),
			"capacity_sat": c.channel_value_sats,
			"outbound_capacity_msat": c.outbound_capacity_msat,
			"inbound_capacity_msat": c.inbound_capacity_msat,
			"is_usable": c.is_usable,
		})).collect::<Vec<_>>(),
		"lightning_balances": balances.lightning_balances.iter().map(lightning_balance).collect::<Vec<_>>(),
		"pending_sweeps": balances.pending_balances_from_channel_closures.iter().map(pending_sweep).collect::<Vec<_>>(),
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn hex_round_trip() {
		let bytes: [u8; 4] = [0, 0xab, 0x10, 0xff];
		assert_eq!(hex(&bytes), "00ab10ff");
		assert_eq!(from_hex::<4>("00AB10ff"), Some(bytes));
		assert_eq!(from_hex::<4>("00ab10f"), None);
		assert_eq!(from_hex::<4>("00ab10fg"), None);
		assert_eq!(from_hex::<1>("é"), None);
	}

	#[test]
	fn short_channel_ids() {
		assert_eq!(scid((500u64 << 40) | (3 << 16) | 1), "500x3x1");
	}
}
