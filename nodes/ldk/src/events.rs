//! LDK's event queue, made durable and readable by many: one task takes each event from the node,
//! appends it to `DATA_DIR/events.jsonl` (flushed to disk), and only then tells LDK it was handled.
//! Readers (the SSE stream, payment waits) read the log by sequence number and are woken on each
//! new entry. An event is therefore never lost (LDK replays it until `event_handled()` returns),
//! and never repeated (an event that was written but not yet acknowledged when the daemon stopped
//! comes back first after a restart and is recognised as the log's last entry).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use ldk_node::{Event, Node};
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::invoices::Invoices;
use crate::json::{hex, outpoint};

/// What the API reads from the events besides the log itself.
#[derive(Default)]
pub struct Derived {
	/// Hold invoices whose HTLCs have arrived: payment hash (hex) -> claimable amount (msat).
	pub claimable: HashMap<String, u64>,
	/// Why a payment failed: payment id (hex) -> LDK's reason.
	pub failure_reasons: HashMap<String, String>,
	/// Why a channel closed: user_channel_id -> LDK's reason.
	pub close_reasons: HashMap<u128, String>,
}

pub struct EventLog {
	path: PathBuf,
	file: Mutex<File>,
	entries: Mutex<Vec<Value>>,
	derived: Mutex<Derived>,
	/// The id of the newest entry; readers wait on it.
	latest: watch::Sender<u64>,
}

impl EventLog {
	pub fn open(dir: &Path) -> std::io::Result<Arc<Self>> {
		let path = dir.join("events.jsonl");
		let mut entries = Vec::new();
		if path.exists() {
			for line in BufReader::new(File::open(&path)?).lines() {
				let line = line?;
				// A line cut short by a crash mid-write is not an event; LDK will give it again.
				if let Ok(value) = serde_json::from_str::<Value>(&line) {
					entries.push(value);
				}
			}
		}
		let file = OpenOptions::new().create(true).append(true).open(&path)?;
		let mut derived = Derived::default();
		for entry in &entries {
			derive(&mut derived, entry);
		}
		let latest = entries.len() as u64;
		Ok(Arc::new(Self {
			path,
			file: Mutex::new(file),
			entries: Mutex::new(entries),
			derived: Mutex::new(derived),
			latest: watch::channel(latest).0,
		}))
	}

	pub fn path(&self) -> &Path {
		&self.path
	}

	/// Entries with an id above `after`, oldest first.
	pub fn since(&self, after: u64) -> Vec<Value> {
		let entries = self.entries.lock().unwrap();
		entries.iter().skip(after.min(entries.len() as u64) as usize).cloned().collect()
	}

	pub fn latest_id(&self) -> u64 {
		*self.latest.borrow()
	}

	pub fn subscribe(&self) -> watch::Receiver<u64> {
		self.latest.subscribe()
	}

	pub fn with_derived<T>(&self, read: impl FnOnce(&Derived) -> T) -> T {
		read(&self.derived.lock().unwrap())
	}

	/// Appends one event (its JSON without id and time) unless it repeats the last entry written
	/// before a restart; returns its id.
	fn append(&self, event: Value, may_repeat_last: bool) -> std::io::Result<u64> {
		let mut entries = self.entries.lock().unwrap();
		if may_repeat_last {
			if let Some(last) = entries.last() {
				let same = last.get("type") == event.get("type") && strip(last) == strip(&event);
				if same {
					return Ok(entries.len() as u64);
				}
			}
		}
		let id = entries.len() as u64 + 1;
		let mut entry = event;
		entry["id"] = json!(id);
		entry["time"] = json!(SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0));
		let mut line = serde_json::to_string(&entry).expect("an event is JSON");
		line.push('\n');
		{
			let mut file = self.file.lock().unwrap();
			file.write_all(line.as_bytes())?;
			file.sync_data()?;
		}
		derive(&mut self.derived.lock().unwrap(), &entry);
		entries.push(entry);
		drop(entries);
		self.latest.send_replace(id);
		Ok(id)
	}
}

/// An entry without the fields the log adds, to compare events.
fn strip(entry: &Value) -> Value {
	let mut entry = entry.clone();
	if let Some(object) = entry.as_object_mut() {
		object.remove("id");
		object.remove("time");
	}
	entry
}

fn derive(derived: &mut Derived, entry: &Value) {
	let text = |key: &str| entry.get(key).and_then(Value::as_str).map(String::from);
	match entry.get("type").and_then(Value::as_str) {
		Some("payment_claimable") => {
			if let (Some(hash), Some(amount)) = (text("payment_hash"), entry.get("claimable_amount_msat").and_then(Value::as_u64)) {
				derived.claimable.insert(hash, amount);
			}
		},
		Some("payment_received") => {
			if let Some(hash) = text("payment_hash") {
				derived.claimable.remove(&hash);
			}
		},
		Some("payment_failed") => {
			if let Some(hash) = text("payment_hash") {
				derived.claimable.remove(&hash);
			}
			if let Some(id) = text("payment_id") {
				derived.failure_reasons.insert(id, text("reason").unwrap_or_else(|| "unknown".into()));
			}
		},
		Some("channel_closed") => {
			if let Some(id) = text("user_channel_id").and_then(|id| id.parse::<u128>().ok()) {
				derived.close_reasons.insert(id, text("reason").unwrap_or_else(|| "unknown".into()));
			}
		},
		_ => {},
	}
}

/// An LDK event as JSON: `type` in snake case and its fields, with ids and hashes as hex.
pub fn event_json(event: &Event) -> Value {
	match event {
		Event::PaymentSuccessful { payment_id, payment_hash, payment_preimage, fee_paid_msat } => json!({
			"type": "payment_successful",
			"payment_id": payment_id.map(|id| hex(&id.0)),
			"payment_hash": hex(&payment_hash.0),
			"preimage": payment_preimage.map(|p| hex(&p.0)),
			"fee_paid_msat": fee_paid_msat,
		}),
		Event::PaymentFailed { payment_id, payment_hash, reason } => json!({
			"type": "payment_failed",
			"payment_id": payment_id.map(|id| hex(&id.0)),
			"payment_hash": payment_hash.map(|h| hex(&h.0)),
			"reason": reason.map(|r| format!("{r:?}")),
		}),
		Event::PaymentReceived { payment_id, payment_hash, amount_msat, custom_records } => json!({
			"type": "payment_received",
			"payment_id": payment_id.map(|id| hex(&id.0)),
			"payment_hash": hex(&payment_hash.0),
			"amount_msat": amount_msat,
			"custom_records": custom_records.iter().map(|r| json!({"type": r.type_num, "value": hex(&r.value)})).collect::<Vec<_>>(),
		}),
		Event::PaymentForwarded {
			prev_channel_id,
			next_channel_id,
			prev_node_id,
			next_node_id,
			total_fee_earned_msat,
			outbound_amount_forwarded_msat,
			claim_from_onchain_tx,
			..
		} => json!({
			"type": "payment_forwarded",
			"prev_channel_id": hex(&prev_channel_id.0),
			"next_channel_id": hex(&next_channel_id.0),
			"prev_node_id": prev_node_id.map(|k| k.to_string()),
			"next_node_id": next_node_id.map(|k| k.to_string()),
			"fee_earned_msat": total_fee_earned_msat,
			"outbound_amount_forwarded_msat": outbound_amount_forwarded_msat,
			"claim_from_onchain_tx": claim_from_onchain_tx,
		}),
		Event::PaymentClaimable { payment_id, payment_hash, claimable_amount_msat, claim_deadline, .. } => json!({
			"type": "payment_claimable",
			"payment_id": hex(&payment_id.0),
			"payment_hash": hex(&payment_hash.0),
			"claimable_amount_msat": claimable_amount_msat,
			"claim_deadline_height": claim_deadline,
		}),
		Event::ChannelPending { channel_id, user_channel_id, counterparty_node_id, funding_txo, .. } => json!({
			"type": "channel_pending",
			"channel_id": hex(&channel_id.0),
			"user_channel_id": user_channel_id.0.to_string(),
			"counterparty_node_id": counterparty_node_id.to_string(),
			"funding_txo": outpoint(funding_txo),
		}),
		Event::ChannelReady { channel_id, user_channel_id, counterparty_node_id, funding_txo } => json!({
			"type": "channel_ready",
			"channel_id": hex(&channel_id.0),
			"user_channel_id": user_channel_id.0.to_string(),
			"counterparty_node_id": counterparty_node_id.map(|k| k.to_string()),
			"funding_txo": funding_txo.as_ref().map(outpoint),
		}),
		Event::ChannelClosed { channel_id, user_channel_id, counterparty_node_id, reason } => json!({
			"type": "channel_closed",
			"channel_id": hex(&channel_id.0),
			"user_channel_id": user_channel_id.0.to_string(),
			"counterparty_node_id": counterparty_node_id.map(|k| k.to_string()),
			"reason": reason.as_ref().map(|r| r.to_string()),
		}),
		Event::SplicePending { channel_id, user_channel_id, counterparty_node_id, new_funding_txo } => json!({
			"type": "splice_pending",
			"channel_id": hex(&channel_id.0),
			"user_channel_id": user_channel_id.0.to_string(),
			"counterparty_node_id": counterparty_node_id.to_string(),
			"funding_txo": outpoint(new_funding_txo),
		}),
		Event::SpliceFailed { channel_id, user_channel_id, counterparty_node_id, abandoned_funding_txo } => json!({
			"type": "splice_failed",
			"channel_id": hex(&channel_id.0),
			"user_channel_id": user_channel_id.0.to_string(),
			"counterparty_node_id": counterparty_node_id.to_string(),
			"abandoned_funding_txo": abandoned_funding_txo.as_ref().map(outpoint),
		}),
	}
}

/// Takes LDK's events until `stop` fires: log first, act (settle or fail back a claimable payment),
/// acknowledge last, so that an event cut short by a stop is logged and acted on after the restart.
pub async fn run(node: Arc<Node>, log: Arc<EventLog>, invoices: Arc<Invoices>, mut stop: watch::Receiver<bool>) {
	let mut first = true;
	loop {
		let event = tokio::select! {
			event = node.next_event_async() => event,
			_ = stop.wait_for(|stopping| *stopping) => return,
		};
		let value = event_json(&event);
		loop {
			match log.append(value.clone(), first) {
				Ok(_) => break,
				Err(error) => {
					// Not acknowledged: LDK keeps the event; try again rather than lose it.
					eprintln!("reglab-ldk: could not write {}: {error}; retrying in 1 s", log.path().display());
					tokio::time::sleep(std::time::Duration::from_secs(1)).await;
				},
			}
		}
		first = false;
		if let Event::PaymentClaimable { payment_hash, claimable_amount_msat, .. } = event {
			let (invoices, hash) = (Arc::clone(&invoices), payment_hash.0);
			match tokio::task::spawn_blocking(move || invoices.on_claimable(hash, claimable_amount_msat)).await {
				Ok(Ok(())) => {},
				Ok(Err(error)) => eprintln!("reglab-ldk: payment {} is claimable but {error}", hex(&hash)),
				Err(error) => eprintln!("reglab-ldk: settling payment {} failed: {error}", hex(&hash)),
			}
		}
		let handled = {
			let node = Arc::clone(&node);
			tokio::task::spawn_blocking(move || node.event_handled()).await
		};
		match handled {
			Ok(Ok(())) => {},
			// LDK keeps the event and gives it again; the log recognises it as its last entry.
			Ok(Err(error)) => {
				eprintln!("reglab-ldk: LDK could not mark an event handled: {error}");
				first = true;
			},
			Err(error) => {
				eprintln!("reglab-ldk: event acknowledgement task failed: {error}");
				first = true;
			},
		}
	}
}
