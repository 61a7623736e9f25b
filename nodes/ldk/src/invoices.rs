//! Invoices, all registered for their payment hash so that LDK asks before it settles one. LDK
//! settles an invoice it made the preimage of the moment it is paid, and nothing refuses that
//! payment later, not even `fail_for_hash`: so the daemon makes the preimage of its usual invoices
//! itself (kept in `DATA_DIR/invoice-preimages.jsonl` until paid) and settles them as soon as their
//! payment is claimable, while a hold invoice waits for the caller's preimage. Either can be
//! canceled until it is settled, as lnd's invoices can: the cancel and the settling of one invoice
//! take the same lock, and a settling is recorded (`DATA_DIR/hold-preimages.jsonl`) before LDK is
//! asked to claim, so a canceled invoice is never settled and a settled one never canceled.

use std::io::Read;
use std::sync::{Arc, Mutex};

use ldk_node::bitcoin::hashes::{sha256, Hash};
use ldk_node::lightning::ln::channelmanager::PaymentId;
use ldk_node::lightning_invoice::{Bolt11Invoice, Bolt11InvoiceDescription};
use ldk_node::lightning_types::payment::{PaymentHash, PaymentPreimage};
use ldk_node::payment::PaymentStatus;
use ldk_node::Node;

use crate::error::{ApiError, ApiResult};
use crate::json::hex;
use crate::preimages::Preimages;

pub struct Invoices {
	node: Arc<Node>,
	/// Preimages of the invoices the daemon made, from their creation on.
	own: Preimages,
	/// Preimages invoices were settled with, recorded before the claim.
	settled: Preimages,
	/// Held while an invoice is settled or canceled.
	deciding: Mutex<()>,
}

/// What an invoice asks for.
pub struct InvoiceTerms {
	pub amount_msat: Option<u64>,
	pub description: Bolt11InvoiceDescription,
	pub expiry_secs: u32,
}

impl Invoices {
	pub fn new(node: Arc<Node>, own: Preimages, settled: Preimages) -> Self {
		Self { node, own, settled, deciding: Mutex::new(()) }
	}

	/// A new invoice: for `hold_hash`, held until `settle`; otherwise settled on arrival.
	pub fn create(&self, terms: InvoiceTerms, hold_hash: Option<[u8; 32]>) -> ApiResult<Bolt11Invoice> {
		let hash = match hold_hash {
			Some(hash) => hash,
			None => {
				let preimage = random_preimage()?;
				let hash = sha256::Hash::hash(&preimage).to_byte_array();
				// Kept before the invoice exists: an invoice whose preimage was lost could never be settled.
				self.own.insert(&hex(&hash), &hex(&preimage)).map_err(persistence_failed)?;
				hash
			},
		};
		let bolt11 = self.node.bolt11_payment();
		let InvoiceTerms { amount_msat, description, expiry_secs } = terms;
		match amount_msat {
			Some(amount) => bolt11.receive_for_hash(amount, &description, expiry_secs, PaymentHash(hash)),
			None => bolt11.receive_variable_amount_for_hash(&description, expiry_secs, PaymentHash(hash)),
		}
		.map_err(|error| ApiError::from_ldk(error, "creating the invoice"))
	}

	/// A payment became claimable (the event `payment_claimable`): an invoice the daemon made is
	/// settled, a canceled one fails back (held HTLCs would otherwise wait for their deadline), a hold
	/// invoice waits for `settle`. Safe to repeat: the event comes again after a restart.
	pub fn on_claimable(&self, hash: [u8; 32], claimable_msat: u64) -> Result<(), String> {
		let _deciding = self.deciding.lock().unwrap();
		let id = PaymentId(hash);
		let status = self.node.payment(&id).map(|payment| payment.status);
		if status == Some(PaymentStatus::Failed) {
			return self.node.bolt11_payment().fail_for_hash(PaymentHash(hash)).map_err(|error| format!("failing back a canceled invoice: {error}"));
		}
		let Some(preimage) = self.own.get(&hex(&hash)) else {
			return Ok(());
		};
		if status == Some(PaymentStatus::Succeeded) {
			return Ok(());
		}
		let preimage = crate::json::from_hex::<32>(&preimage).ok_or("a stored preimage is not 32 bytes of hex")?;
		self.claim(hash, claimable_msat, preimage).map_err(|error| error.message)
	}

	/// Settles a hold invoice whose payment is claimable.
	pub fn settle(&self, hash: [u8; 32], claimable_msat: u64, preimage: [u8; 32]) -> ApiResult<()> {
		let _deciding = self.deciding.lock().unwrap();
		if self.node.payment(&PaymentId(hash)).is_some_and(|payment| payment.status == PaymentStatus::Failed) {
			return Err(ApiError::conflict("ALREADY_CANCELED", "this invoice was canceled or its payment failed"));
		}
		self.claim(hash, claimable_msat, preimage)
	}

	fn claim(&self, hash: [u8; 32], claimable_msat: u64, preimage: [u8; 32]) -> ApiResult<()> {
		self.settled.insert(&hex(&hash), &hex(&preimage)).map_err(persistence_failed)?;
		self.node
			.bolt11_payment()
			.claim_for_hash(PaymentHash(hash), claimable_msat, PaymentPreimage(preimage))
			.map_err(|error| ApiError::from_ldk(error, "settling the invoice"))
	}

	/// Makes an invoice unpayable: its held HTLCs fail back now, later ones as they arrive.
	pub fn cancel(&self, hash: [u8; 32]) -> ApiResult<()> {
		let _deciding = self.deciding.lock().unwrap();
		let settled = self.settled.get(&hex(&hash)).is_some() || self.node.payment(&PaymentId(hash)).is_some_and(|payment| payment.status == PaymentStatus::Succeeded);
		if settled {
			return Err(ApiError::conflict("ALREADY_SETTLED", "this invoice is already settled and cannot be canceled"));
		}
		self.node.bolt11_payment().fail_for_hash(PaymentHash(hash)).map_err(|error| ApiError::from_ldk(error, "canceling the invoice"))
	}

	/// The preimage an invoice was settled with (LDK's record of an invoice made for a hash keeps none).
	pub fn settled_preimage(&self, hash: &[u8; 32]) -> Option<String> {
		self.settled.get(&hex(hash))
	}
}

fn persistence_failed(error: std::io::Error) -> ApiError {
	ApiError::unavailable("PERSISTENCE_FAILED", format!("could not record the preimage in the data folder: {error}"))
}

fn random_preimage() -> ApiResult<[u8; 32]> {
	let mut preimage = [0u8; 32];
	std::fs::File::open("/dev/urandom")
		.and_then(|mut random| random.read_exact(&mut preimage))
		.map_err(|error| ApiError::internal(format!("could not read /dev/urandom for a preimage: {error}")))?;
	Ok(preimage)
}
