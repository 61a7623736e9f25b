//! One error shape for every answer that is not a success:
//! `{"error":{"code":"UPPER_SNAKE","message":"what was wrong and what to do"}}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use ldk_node::NodeError;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
	pub status: StatusCode,
	pub code: &'static str,
	pub message: String,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
	pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
		Self { status, code, message: message.into() }
	}
	pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
		Self::new(StatusCode::BAD_REQUEST, code, message)
	}
	pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
		Self::new(StatusCode::NOT_FOUND, code, message)
	}
	pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
		Self::new(StatusCode::CONFLICT, code, message)
	}
	pub fn unavailable(code: &'static str, message: impl Into<String>) -> Self {
		Self::new(StatusCode::SERVICE_UNAVAILABLE, code, message)
	}
	pub fn bad_gateway(code: &'static str, message: impl Into<String>) -> Self {
		Self::new(StatusCode::BAD_GATEWAY, code, message)
	}
	pub fn internal(message: impl Into<String>) -> Self {
		Self::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", message)
	}

	/// An error of LDK, said in the words of what was being done (`doing`, e.g. "opening the channel").
	pub fn from_ldk(error: NodeError, doing: &str) -> Self {
		use NodeError::*;
		let (status, code, hint) = match error {
			NotRunning => (StatusCode::SERVICE_UNAVAILABLE, "NODE_NOT_RUNNING", "the node is starting or stopping; retry in a moment"),
			InsufficientFunds => (
				StatusCode::CONFLICT,
				"INSUFFICIENT_FUNDS",
				"fund the node (POST /v1/address, send to it, mine, POST /v1/sync); anchor channels also keep a reserve per channel on-chain",
			),
			DuplicatePayment => (StatusCode::CONFLICT, "DUPLICATE_PAYMENT", "this payment hash was already paid or is being paid; see GET /v1/payments"),
			InvalidAmount => (StatusCode::BAD_REQUEST, "INVALID_AMOUNT", "give a positive amount in msat, at least what the invoice or offer asks"),
			InvalidInvoice => (StatusCode::BAD_REQUEST, "INVALID_INVOICE", "give a BOLT11 invoice of this network that has not expired"),
			InvalidOffer => (StatusCode::BAD_REQUEST, "INVALID_OFFER", "give a BOLT12 offer (lno1...) of this network"),
			InvalidPublicKey | InvalidNodeId => (StatusCode::BAD_REQUEST, "INVALID_PUBKEY", "give a node id as 66 hex characters"),
			InvalidSocketAddress => (StatusCode::BAD_REQUEST, "INVALID_ADDRESS", "give the peer's address as HOST:PORT"),
			InvalidPaymentPreimage => (StatusCode::BAD_REQUEST, "INVALID_PREIMAGE", "the preimage must be 32 bytes whose SHA-256 is the payment hash"),
			InvalidPaymentHash => (StatusCode::NOT_FOUND, "PAYMENT_NOT_FOUND", "no invoice of this node has that payment hash"),
			UnsupportedCurrency => (StatusCode::BAD_REQUEST, "UNSUPPORTED_CURRENCY", "only offers in bitcoin can be paid"),
			InvalidQuantity => (StatusCode::BAD_REQUEST, "INVALID_QUANTITY", "the offer does not allow that quantity"),
			InvalidNodeAlias => (StatusCode::BAD_REQUEST, "INVALID_ALIAS", "an alias is at most 32 bytes"),
			ConnectionFailed => (
				StatusCode::BAD_GATEWAY,
				"PEER_CONNECTION_FAILED",
				"check the peer's pubkey and HOST:PORT and that it is running",
			),
			ChannelCreationFailed => (
				StatusCode::BAD_GATEWAY,
				"CHANNEL_OPEN_FAILED",
				"the peer refused or the funding failed; check GET /v1/events and the node's log (DATA_DIR/ldk_node.log)",
			),
			// LDK refuses a close the channel's state does not allow now (not yet funded, already closing)
			ChannelClosingFailed => (StatusCode::CONFLICT, "CHANNEL_CLOSE_FAILED", "the channel could not be closed now; a force close may still work"),
			// refused before anything left the node: no route, too little outbound balance, expired
			PaymentSendingFailed => (
				StatusCode::CONFLICT,
				"PAYMENT_SENDING_FAILED",
				"LDK found no way to send it: check the channels, their balances and the fee limit",
			),
			InvoiceCreationFailed | InvoiceRequestCreationFailed | OfferCreationFailed | RefundCreationFailed => {
				(StatusCode::BAD_GATEWAY, "LDK_REFUSED", "check the amounts and the description and the node's log")
			},
			TxSyncFailed | TxSyncTimeout | WalletOperationFailed | WalletOperationTimeout | FeerateEstimationUpdateFailed
			| FeerateEstimationUpdateTimeout => (
				StatusCode::SERVICE_UNAVAILABLE,
				"CHAIN_SOURCE_UNAVAILABLE",
				"the chain source (Electrum or Esplora) did not answer in time; check that it is up and retry",
			),
			PersistenceFailed => (StatusCode::SERVICE_UNAVAILABLE, "PERSISTENCE_FAILED", "the node could not write its data folder; check the disk"),
			_ => (StatusCode::BAD_GATEWAY, "LDK_ERROR", "see the node's log (DATA_DIR/ldk_node.log)"),
		};
		Self::new(status, code, format!("{doing}: {error}; {hint}"))
	}
}

impl IntoResponse for ApiError {
	fn into_response(self) -> Response {
		let body = json!({ "error": { "code": self.code, "message": self.message } });
		(self.status, Json(body)).into_response()
	}
}
