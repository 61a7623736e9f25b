//! The HTTP JSON API. Every handler validates its input before it calls LDK, calls LDK's blocking
//! methods on tokio's blocking pool, and answers either JSON or the error shape of `error.rs`.

use std::convert::Infallible;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ldk_node::bitcoin::hashes::{sha256, Hash};
use ldk_node::bitcoin::secp256k1::PublicKey;
use ldk_node::lightning::ln::channelmanager::PaymentId;
use ldk_node::lightning::ln::msgs::SocketAddress;
use ldk_node::lightning::offers::offer::{Amount as OfferAmount, Offer};
use ldk_node::lightning::routing::router::RouteParametersConfig;
use ldk_node::lightning_types::payment::PaymentPreimage;
use ldk_node::lightning_invoice::{Bolt11Invoice, Bolt11InvoiceDescription, Description, Sha256};
use ldk_node::payment::{PaymentDetails, PaymentStatus};
use ldk_node::{Node, NodeError};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::error::{ApiError, ApiResult};
use crate::events::EventLog;
use crate::json::{self, from_hex, hex};
use crate::invoices::{InvoiceTerms, Invoices};
use crate::settings::Settings;

/// How long a payment request waits for LDK's final answer before it answers `pending` (202).
pub const DEFAULT_PAYMENT_WAIT_SECS: u64 = 60;
const MAX_PAYMENT_WAIT_SECS: u64 = 600;
/// What LDK says when it closes a channel whose funding transaction its wallet could not make.
const FUNDING_NOT_MADE: &str = "Failed to create funding transaction";
/// How long opening a channel waits for its funding transaction (the ChannelPending step).
const FUNDING_WAIT: Duration = Duration::from_secs(15);

pub struct AppState {
	pub node: Arc<Node>,
	pub events: Arc<EventLog>,
	pub invoices: Arc<Invoices>,
	pub settings: Settings,
	/// Set once the first wallet sync after start has succeeded.
	pub synced: AtomicBool,
	/// Turns true when the daemon is stopping: open event streams end.
	pub stopping: watch::Receiver<bool>,
}

type AppStateRef = State<Arc<AppState>>;

pub fn router(state: Arc<AppState>) -> Router {
	Router::new()
		.route("/health", get(health))
		.route("/openapi.json", get(openapi))
		.route("/v1/info", get(info))
		.route("/v1/sync", post(sync))
		.route("/v1/address", post(new_address))
		.route("/v1/balances", get(balances))
		.route("/v1/peers", get(list_peers))
		.route("/v1/peers/connect", post(connect_peer))
		.route("/v1/peers/disconnect", post(disconnect_peer))
		.route("/v1/channels", get(list_channels))
		.route("/v1/channels/open", post(open_channel))
		.route("/v1/channels/close", post(close_channel))
		.route("/v1/graph/channels", get(graph_channels))
		.route("/v1/invoices", post(create_invoice))
		.route("/v1/invoices/{payment_hash}/settle", post(settle_invoice))
		.route("/v1/invoices/{payment_hash}/cancel", post(cancel_invoice))
		.route("/v1/offers", post(create_offer))
		.route("/v1/payments", get(list_payments))
		.route("/v1/payments/{id}", get(get_payment))
		.route("/v1/payments/bolt11", post(pay_bolt11))
		.route("/v1/payments/bolt12", post(pay_bolt12))
		.route("/v1/payments/keysend", post(pay_keysend))
		.route("/v1/events", get(events))
		.fallback(|| async { ApiError::not_found("NOT_FOUND", "no such route; GET /openapi.json lists them") })
		.method_not_allowed_fallback(|| async {
			ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", "this route does not take that method; GET /openapi.json lists the methods")
		})
		.with_state(state)
}

// ---- input ------------------------------------------------------------------------------------

/// A JSON body, with every way of getting it wrong answered in the API's error shape. An empty
/// body counts as `{}` so that routes whose fields are all optional can be called without one.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
	type Rejection = ApiError;

	async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
		let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
			if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
				ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "BODY_TOO_LARGE", "the body is larger than 2 MiB")
			} else {
				ApiError::bad_request("INVALID_BODY", format!("the body could not be read: {rejection}"))
			}
		})?;
		let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { &bytes };
		let value: Value = serde_json::from_slice(text)
			.map_err(|error| ApiError::bad_request("INVALID_JSON", format!("the body is not valid JSON ({error}); send a JSON object")))?;
		if !value.is_object() {
			return Err(ApiError::bad_request("INVALID_JSON", "the body must be a JSON object"));
		}
		serde_json::from_value(value)
			.map(Body)
			.map_err(|error| ApiError::bad_request("INVALID_REQUEST", format!("{error}; GET /openapi.json describes the body")))
	}
}

fn path_param(param: Result<Path<String>, PathRejection>) -> ApiResult<String> {
	param.map(|Path(value)| value).map_err(|rejection| ApiError::bad_request("INVALID_PATH", rejection.body_text()))
}

fn pubkey(text: &str, field: &str) -> ApiResult<PublicKey> {
	PublicKey::from_str(text)
		.map_err(|_| ApiError::bad_request("INVALID_PUBKEY", format!("{field} must be a node id: 66 hex characters (33 bytes), not \"{text}\"")))
}

fn socket_address(text: &str, field: &str) -> ApiResult<SocketAddress> {
	SocketAddress::from_str(text).map_err(|_| ApiError::bad_request("INVALID_ADDRESS", format!("{field} must be HOST:PORT, not \"{text}\"")))
}

fn hash32(text: &str, field: &str) -> ApiResult<[u8; 32]> {
	from_hex::<32>(text).ok_or_else(|| ApiError::bad_request("INVALID_HASH", format!("{field} must be 32 bytes as 64 hex characters, not \"{text}\"")))
}

/// All the bitcoin there will ever be, in msat.
const MAX_MSAT: u64 = 21_000_000 * 100_000_000 * 1_000;

fn positive(amount: Option<u64>, field: &str) -> ApiResult<Option<u64>> {
	match amount {
		Some(0) => Err(ApiError::bad_request("INVALID_AMOUNT", format!("{field} must be a positive whole number"))),
		Some(amount) if amount > MAX_MSAT => Err(ApiError::bad_request("INVALID_AMOUNT", format!("{field} is more than all the bitcoin there is"))),
		other => Ok(other),
	}
}

/// LDK's routing parameters with the caller's fee limit, or LDK's defaults (1% + 50 sat) without one.
fn fee_limit(max_fee_msat: Option<u64>) -> ApiResult<Option<RouteParametersConfig>> {
	if max_fee_msat.is_some_and(|fee| fee > MAX_MSAT) {
		return Err(ApiError::bad_request("INVALID_AMOUNT", "max_fee_msat is more than all the bitcoin there is"));
	}
	Ok(max_fee_msat.map(|fee| RouteParametersConfig::default().with_max_total_routing_fee_msat(fee)))
}

fn wait_of(wait_secs: Option<u64>) -> ApiResult<Duration> {
	let secs = wait_secs.unwrap_or(DEFAULT_PAYMENT_WAIT_SECS);
	if secs > MAX_PAYMENT_WAIT_SECS {
		return Err(ApiError::bad_request("INVALID_WAIT", format!("wait_secs must be at most {MAX_PAYMENT_WAIT_SECS}")));
	}
	Ok(Duration::from_secs(secs))
}

/// Runs one of LDK's blocking calls on the blocking pool.
async fn blocking<T: Send + 'static>(call: impl FnOnce() -> T + Send + 'static) -> ApiResult<T> {
	tokio::task::spawn_blocking(call).await.map_err(|error| ApiError::internal(format!("the call to LDK did not finish: {error}")))
}

// ---- node -------------------------------------------------------------------------------------

async fn health(State(state): AppStateRef) -> Response {
	let status = state.node.status();
	if !status.is_running {
		return ApiError::unavailable("NODE_NOT_RUNNING", "the node is starting or stopping").into_response();
	}
	if !state.synced.load(Ordering::SeqCst) {
		return ApiError::unavailable(
			"NOT_SYNCED",
			format!("the node has not synced with its chain source ({}) yet; check that it is up", state.settings.chain_source.url()),
		)
		.into_response();
	}
	Json(json!({ "status": "ok", "block_height": status.current_best_block.height })).into_response()
}

async fn openapi() -> Response {
	([(header::CONTENT_TYPE, "application/json")], include_str!("openapi.json")).into_response()
}

fn info_json(state: &AppState) -> Value {
	let node = &state.node;
	let status = node.status();
	let channels = node.list_channels();
	let peers = node.list_peers();
	json!({
		"node_id": node.node_id().to_string(),
		"alias": node.node_alias().map(|alias| alias.to_string()),
		"network": state.settings.network.to_string(),
		"listening_addresses": node.listening_addresses().unwrap_or_default().iter().map(ToString::to_string).collect::<Vec<_>>(),
		"announcement_addresses": node.announcement_addresses().unwrap_or_default().iter().map(ToString::to_string).collect::<Vec<_>>(),
		"chain_source": { "kind": state.settings.chain_source.kind(), "url": state.settings.chain_source.url() },
		"is_running": status.is_running,
		"synced": state.synced.load(Ordering::SeqCst),
		"block": { "height": status.current_best_block.height, "hash": status.current_best_block.block_hash.to_string() },
		"latest_onchain_wallet_sync_at": status.latest_onchain_wallet_sync_timestamp,
		"latest_lightning_wallet_sync_at": status.latest_lightning_wallet_sync_timestamp,
		"latest_fee_rate_cache_update_at": status.latest_fee_rate_cache_update_timestamp,
		"latest_node_announcement_broadcast_at": status.latest_node_announcement_broadcast_timestamp,
		"num_channels": channels.len(),
		"num_usable_channels": channels.iter().filter(|c| c.is_usable).count(),
		"num_peers": peers.iter().filter(|p| p.is_connected).count(),
		"version": env!("CARGO_PKG_VERSION"),
		"ldk_node_version": "0.7.1",
	})
}

async fn info(State(state): AppStateRef) -> Json<Value> {
	Json(info_json(&state))
}

/// A sync's steps that ldk-node gives a fixed time, and gives up on when the chain source answers later.
fn timed_out(error: &NodeError) -> bool {
	matches!(error, NodeError::WalletOperationTimeout | NodeError::TxSyncTimeout | NodeError::FeerateEstimationUpdateTimeout)
}

// ldk-node gives each step of a sync a fixed time (BDK_WALLET_SYNC_TIMEOUT_SECS and its siblings),
// which a lab's indexer can overrun on a machine shared by many labs: a sync that timed out is tried
// once more, and answers CHAIN_SOURCE_UNAVAILABLE only if that one fails too.
async fn sync(State(state): AppStateRef, Body(_): Body<Empty>) -> ApiResult<Json<Value>> {
	let started = Instant::now();
	let node = Arc::clone(&state.node);
	let mut synced = blocking(move || node.sync_wallets()).await?;
	if let Some(error) = synced.as_ref().err().filter(|error| timed_out(error)) {
		eprintln!("reglab-ldk: a wallet sync timed out ({error}); trying once more");
		let node = Arc::clone(&state.node);
		synced = blocking(move || node.sync_wallets()).await?;
	}
	synced.map_err(|error| ApiError::from_ldk(error, "syncing the wallets"))?;
	state.synced.store(true, Ordering::SeqCst);
	let mut info = info_json(&state);
	info["sync_ms"] = json!(started.elapsed().as_millis() as u64);
	Ok(Json(info))
}

async fn new_address(State(state): AppStateRef, Body(_): Body<Empty>) -> ApiResult<Json<Value>> {
	let node = Arc::clone(&state.node);
	let address = blocking(move || node.onchain_payment().new_address()).await?.map_err(|error| ApiError::from_ldk(error, "deriving an address"))?;
	Ok(Json(json!({ "address": address.to_string() })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

async fn balances(State(state): AppStateRef) -> Json<Value> {
	Json(json::balances(&state.node.list_balances(), &state.node.list_channels()))
}

// ---- peers ------------------------------------------------------------------------------------

async fn list_peers(State(state): AppStateRef) -> Json<Value> {
	Json(json!({ "peers": state.node.list_peers().iter().map(json::peer).collect::<Vec<_>>() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectRequest {
	pubkey: String,
	address: String,
	persist: Option<bool>,
}

async fn connect_peer(State(state): AppStateRef, Body(request): Body<ConnectRequest>) -> ApiResult<Json<Value>> {
	let node_id = pubkey(&request.pubkey, "pubkey")?;
	let address = socket_address(&request.address, "address")?;
	if node_id == state.node.node_id() {
		return Err(ApiError::bad_request("SELF_CONNECT", "that is this node's own id; give another node's pubkey"));
	}
	let persist = request.persist.unwrap_or(true);
	let node = Arc::clone(&state.node);
	let target = address.clone();
	blocking(move || node.connect(node_id, target, persist))
		.await?
		.map_err(|error| ApiError::from_ldk(error, &format!("connecting to {node_id}@{address}")))?;
	let peer = state.node.list_peers().into_iter().find(|peer| peer.node_id == node_id);
	Ok(Json(peer.map(|peer| json::peer(&peer)).unwrap_or_else(|| json!({ "node_id": node_id.to_string(), "address": address.to_string(), "is_connected": true, "is_persisted": persist }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DisconnectRequest {
	pubkey: String,
}

async fn disconnect_peer(State(state): AppStateRef, Body(request): Body<DisconnectRequest>) -> ApiResult<Json<Value>> {
	let node_id = pubkey(&request.pubkey, "pubkey")?;
	if !state.node.list_peers().iter().any(|peer| peer.node_id == node_id) {
		return Err(ApiError::not_found("PEER_NOT_FOUND", format!("{node_id} is not a peer of this node; GET /v1/peers lists them")));
	}
	let node = Arc::clone(&state.node);
	blocking(move || node.disconnect(node_id)).await?.map_err(|error| ApiError::from_ldk(error, &format!("disconnecting {node_id}")))?;
	Ok(Json(json!({ "node_id": node_id.to_string(), "disconnected": true })))
}

// ---- channels ---------------------------------------------------------------------------------

async fn list_channels(State(state): AppStateRef) -> Json<Value> {
	let balances = state.node.list_balances();
	let channels: Vec<Value> = state.node.list_channels().iter().map(|channel| json::channel(channel, json::balance_on_close(&balances, &channel.channel_id))).collect();
	Json(json!({ "channels": channels }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenRequest {
	pubkey: String,
	address: String,
	capacity_sat: u64,
	push_msat: Option<u64>,
	public: Option<bool>,
}

async fn open_channel(State(state): AppStateRef, Body(request): Body<OpenRequest>) -> ApiResult<Response> {
	let node_id = pubkey(&request.pubkey, "pubkey")?;
	let address = socket_address(&request.address, "address")?;
	if node_id == state.node.node_id() {
		return Err(ApiError::bad_request("SELF_CHANNEL", "a channel needs another node; give its pubkey"));
	}
	if request.capacity_sat < 20_000 || request.capacity_sat > MAX_MSAT / 1000 {
		return Err(ApiError::bad_request("INVALID_CAPACITY", "capacity_sat must be at least 20000 (and not more than all the bitcoin there is)"));
	}
	if let Some(push) = request.push_msat {
		if push >= request.capacity_sat * 1000 {
			return Err(ApiError::bad_request("INVALID_PUSH", "push_msat must be less than the capacity (capacity_sat * 1000)"));
		}
	}
	let public = request.public.unwrap_or(true);
	let spendable = state.node.list_balances().spendable_onchain_balance_sats;
	if spendable < request.capacity_sat {
		return Err(ApiError::conflict(
			"INSUFFICIENT_FUNDS",
			format!("the node can spend {spendable} sat on-chain, less than capacity_sat {}; fund it (POST /v1/address), mine and POST /v1/sync", request.capacity_sat),
		));
	}
	let node = Arc::clone(&state.node);
	let (capacity, push) = (request.capacity_sat, request.push_msat);
	let target = address.clone();
	let user_channel_id = blocking(move || {
		if public {
			node.open_announced_channel(node_id, target, capacity, push, None)
		} else {
			node.open_channel(node_id, target, capacity, push, None)
		}
	})
	.await?
	.map_err(|error| ApiError::from_ldk(error, &format!("opening a channel to {node_id}@{address}")))?;

	// The funding transaction is known once the peer has accepted (LDK's ChannelPending).
	let deadline = Instant::now() + FUNDING_WAIT;
	let mut events = state.events.subscribe();
	loop {
		let channel = state.node.list_channels().into_iter().find(|channel| channel.user_channel_id == user_channel_id);
		if let Some(funding) = channel.as_ref().and_then(|channel| channel.funding_txo) {
			let channel = channel.expect("checked");
			return Ok(Json(json!({
				"user_channel_id": user_channel_id.0.to_string(),
				"channel_id": hex(&channel.channel_id.0),
				"funding_txid": funding.txid.to_string(),
				"funding_vout": funding.vout,
				"public": public,
			}))
			.into_response());
		}
		if let Some(reason) = state.events.with_derived(|derived| derived.close_reasons.get(&user_channel_id.0).cloned()) {
			// the wallet could not pay for it (the fee on top of the capacity, or coins taken by opens still unconfirmed):
			// the node's state, not a failure of the peer
			if reason.contains(FUNDING_NOT_MADE) {
				return Err(ApiError::conflict(
					"INSUFFICIENT_FUNDS",
					format!("the wallet could not make the funding transaction of {capacity} sat to {node_id} with its fee ({reason}); fund it (POST /v1/address), mine and POST /v1/sync"),
				));
			}
			return Err(ApiError::bad_gateway("CHANNEL_OPEN_FAILED", format!("the channel to {node_id} was closed before it was funded: {reason}")));
		}
		let left = deadline.saturating_duration_since(Instant::now());
		if left.is_zero() {
			// Still negotiating: answer what is known; GET /v1/channels shows the rest.
			return Ok((
				StatusCode::ACCEPTED,
				Json(json!({ "user_channel_id": user_channel_id.0.to_string(), "channel_id": null, "funding_txid": null, "funding_vout": null, "public": public })),
			)
				.into_response());
		}
		let _ = tokio::time::timeout(left.min(Duration::from_millis(200)), events.changed()).await;
	}
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CloseRequest {
	user_channel_id: Option<String>,
	channel_id: Option<String>,
	counterparty_node_id: Option<String>,
	force: Option<bool>,
}

async fn close_channel(State(state): AppStateRef, Body(request): Body<CloseRequest>) -> ApiResult<Json<Value>> {
	let counterparty = request.counterparty_node_id.as_deref().map(|text| pubkey(text, "counterparty_node_id")).transpose()?;
	let channels = state.node.list_channels();
	let channel = match (&request.user_channel_id, &request.channel_id) {
		(Some(id), None) => {
			let id = id.parse::<u128>().map_err(|_| {
				ApiError::bad_request("INVALID_CHANNEL_ID", format!("user_channel_id must be the decimal string GET /v1/channels gives, not \"{id}\""))
			})?;
			channels.into_iter().find(|channel| channel.user_channel_id.0 == id)
		},
		(None, Some(id)) => {
			let id = hash32(id, "channel_id")?;
			channels.into_iter().find(|channel| channel.channel_id.0 == id)
		},
		_ => return Err(ApiError::bad_request("INVALID_REQUEST", "give exactly one of user_channel_id and channel_id")),
	};
	let channel = channel.ok_or_else(|| ApiError::not_found("CHANNEL_NOT_FOUND", "this node has no open channel with that id; GET /v1/channels lists them"))?;
	if let Some(counterparty) = counterparty {
		if counterparty != channel.counterparty_node_id {
			return Err(ApiError::bad_request(
				"WRONG_COUNTERPARTY",
				format!("the channel's counterparty is {}, not {counterparty}", channel.counterparty_node_id),
			));
		}
	}
	let force = request.force.unwrap_or(false);
	let node = Arc::clone(&state.node);
	let (user_channel_id, counterparty) = (channel.user_channel_id, channel.counterparty_node_id);
	blocking(move || {
		if force {
			node.force_close_channel(&user_channel_id, counterparty, Some("closed through the reglab-ldk API".into()))
		} else {
			node.close_channel(&user_channel_id, counterparty)
		}
	})
	.await?
	.map_err(|error| ApiError::from_ldk(error, if force { "force-closing the channel" } else { "closing the channel" }))?;
	Ok(Json(json!({
		"user_channel_id": user_channel_id.0.to_string(),
		"channel_id": hex(&channel.channel_id.0),
		"counterparty_node_id": counterparty.to_string(),
		"force": force,
		"closing": true,
	})))
}

// ---- graph ------------------------------------------------------------------------------------

/// The channels of the node's network graph (gossip), with the routing policy of each direction.
async fn graph_channels(State(state): AppStateRef) -> Json<Value> {
	let graph = state.node.network_graph();
	let channels: Vec<Value> = graph.list_channels().into_iter().filter_map(|id| graph.channel(id).map(|channel| json::graph_channel(id, &channel))).collect();
	Json(json!({ "channels": channels }))
}

// ---- invoices and offers ------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InvoiceRequest {
	amount_msat: Option<u64>,
	description: Option<String>,
	description_hash: Option<String>,
	expiry_secs: Option<u32>,
	payment_hash: Option<String>,
}

async fn create_invoice(State(state): AppStateRef, Body(request): Body<InvoiceRequest>) -> ApiResult<Json<Value>> {
	let amount = positive(request.amount_msat, "amount_msat")?;
	let expiry = request.expiry_secs.unwrap_or(3600);
	if expiry == 0 {
		return Err(ApiError::bad_request("INVALID_EXPIRY", "expiry_secs must be positive"));
	}
	let description = match (request.description, request.description_hash) {
		(Some(_), Some(_)) => return Err(ApiError::bad_request("INVALID_REQUEST", "give description or description_hash, not both")),
		(_, Some(hash)) => Bolt11InvoiceDescription::Hash(Sha256(sha256::Hash::from_byte_array(hash32(&hash, "description_hash")?))),
		(text, None) => Bolt11InvoiceDescription::Direct(
			Description::new(text.unwrap_or_default()).map_err(|_| ApiError::bad_request("INVALID_DESCRIPTION", "description must be at most 639 bytes"))?,
		),
	};
	let hold_hash = request.payment_hash.as_deref().map(|text| hash32(text, "payment_hash")).transpose()?;
	if let Some(hash) = hold_hash {
		if state.node.payment(&PaymentId(hash)).is_some() {
			return Err(ApiError::conflict("DUPLICATE_PAYMENT_HASH", "this node already has an invoice or payment with that payment_hash; use a new hash"));
		}
	}
	let invoices = Arc::clone(&state.invoices);
	let terms = InvoiceTerms { amount_msat: amount, description, expiry_secs: expiry };
	let invoice = blocking(move || invoices.create(terms, hold_hash)).await??;
	Ok(Json(invoice_json(&invoice, hold_hash.is_some())))
}

fn invoice_json(invoice: &Bolt11Invoice, hold: bool) -> Value {
	json!({
		"invoice": invoice.to_string(),
		"payment_hash": invoice.payment_hash().to_string(),
		"payment_secret": hex(&invoice.payment_secret().0),
		"amount_msat": invoice.amount_milli_satoshis(),
		"expires_at": invoice.expires_at().map(|at| at.as_secs()),
		"hold": hold,
	})
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettleRequest {
	preimage: String,
}

/// The payment of an invoice, or 404.
fn invoice_payment(state: &AppState, hash: [u8; 32]) -> ApiResult<PaymentDetails> {
	state
		.node
		.payment(&PaymentId(hash))
		.filter(|payment| json::payment_hash(payment) == Some(hash))
		.ok_or_else(|| ApiError::not_found("INVOICE_NOT_FOUND", "this node has no invoice with that payment hash"))
}

async fn settle_invoice(
	State(state): AppStateRef, hash: Result<Path<String>, PathRejection>, Body(request): Body<SettleRequest>,
) -> ApiResult<Response> {
	let hash = hash32(&path_param(hash)?, "payment_hash")?;
	let preimage = from_hex::<32>(&request.preimage)
		.ok_or_else(|| ApiError::bad_request("INVALID_PREIMAGE", "preimage must be 32 bytes as 64 hex characters"))?;
	if sha256::Hash::hash(&preimage).to_byte_array() != hash {
		return Err(ApiError::bad_request("PREIMAGE_MISMATCH", "the SHA-256 of preimage is not the invoice's payment hash"));
	}
	let payment = invoice_payment(&state, hash)?;
	match payment.status {
		PaymentStatus::Succeeded => return Err(ApiError::conflict("ALREADY_SETTLED", "this invoice is already settled")),
		PaymentStatus::Failed => return Err(ApiError::conflict("ALREADY_CANCELED", "this invoice was canceled or its payment failed")),
		PaymentStatus::Pending => {},
	}
	let claimable = state.events.with_derived(|derived| derived.claimable.get(&hex(&hash)).copied()).ok_or_else(|| {
		ApiError::conflict("NOT_CLAIMABLE_YET", "no payment has arrived for this invoice yet; settle after the payment_claimable event (GET /v1/events)")
	})?;
	let invoices = Arc::clone(&state.invoices);
	blocking(move || invoices.settle(hash, claimable, preimage)).await??;
	payment_answer(&state, PaymentId(hash), Duration::from_secs(30)).await
}

async fn cancel_invoice(State(state): AppStateRef, hash: Result<Path<String>, PathRejection>, Body(_): Body<Empty>) -> ApiResult<Response> {
	let hash = hash32(&path_param(hash)?, "payment_hash")?;
	invoice_payment(&state, hash)?;
	let invoices = Arc::clone(&state.invoices);
	blocking(move || invoices.cancel(hash)).await??;
	payment_answer(&state, PaymentId(hash), Duration::ZERO).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferRequest {
	amount_msat: Option<u64>,
	description: Option<String>,
	expiry_secs: Option<u32>,
}

async fn create_offer(State(state): AppStateRef, Body(request): Body<OfferRequest>) -> ApiResult<Json<Value>> {
	let amount = positive(request.amount_msat, "amount_msat")?;
	let description = request.description.unwrap_or_default();
	let expiry = request.expiry_secs;
	let node = Arc::clone(&state.node);
	let offer = blocking(move || {
		let bolt12 = node.bolt12_payment();
		match amount {
			Some(amount) => bolt12.receive(amount, &description, expiry, None),
			None => bolt12.receive_variable_amount(&description, expiry),
		}
	})
	.await?
	.map_err(|error| ApiError::from_ldk(error, "creating the offer"))?;
	Ok(Json(json!({ "offer": offer.to_string(), "offer_id": hex(&offer.id().0), "amount_msat": amount })))
}

// ---- payments ---------------------------------------------------------------------------------

/// A payment as JSON with its failure reason, when it failed.
fn payment_value(state: &AppState, payment: &PaymentDetails) -> Value {
	let reason = state.events.with_derived(|derived| derived.failure_reasons.get(&hex(&payment.id.0)).cloned());
	let mut value = json::payment(payment, reason.as_deref());
	// A settled invoice made for a hash: LDK does not record the preimage, the daemon does.
	if value["preimage"].is_null() && payment.status == PaymentStatus::Succeeded {
		if let Some(preimage) = json::payment_hash(payment).and_then(|hash| state.invoices.settled_preimage(&hash)) {
			value["preimage"] = json!(preimage);
		}
	}
	value
}

/// Waits up to `wait` for the payment to be final: 200 with it when it is, 202 while it is pending.
async fn payment_answer(state: &AppState, id: PaymentId, wait: Duration) -> ApiResult<Response> {
	let deadline = Instant::now() + wait;
	let mut events = state.events.subscribe();
	loop {
		let payment = state
			.node
			.payment(&id)
			.ok_or_else(|| ApiError::internal(format!("LDK did not record payment {}", hex(&id.0))))?;
		let left = deadline.saturating_duration_since(Instant::now());
		if payment.status != PaymentStatus::Pending || left.is_zero() {
			let code = if payment.status == PaymentStatus::Pending { StatusCode::ACCEPTED } else { StatusCode::OK };
			return Ok((code, Json(payment_value(state, &payment))).into_response());
		}
		let _ = tokio::time::timeout(left.min(Duration::from_millis(250)), events.changed()).await;
	}
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bolt11PayRequest {
	invoice: String,
	amount_msat: Option<u64>,
	max_fee_msat: Option<u64>,
	wait_secs: Option<u64>,
}

async fn pay_bolt11(State(state): AppStateRef, Body(request): Body<Bolt11PayRequest>) -> ApiResult<Response> {
	let invoice = Bolt11Invoice::from_str(request.invoice.trim())
		.map_err(|error| ApiError::bad_request("INVALID_INVOICE", format!("invoice is not a BOLT11 invoice ({error})")))?;
	if invoice.network() != state.settings.network {
		return Err(ApiError::bad_request("WRONG_NETWORK", format!("the invoice is for {}, this node runs on {}", invoice.network(), state.settings.network)));
	}
	if invoice.is_expired() {
		return Err(ApiError::bad_request("INVOICE_EXPIRED", "the invoice has expired; ask for a new one"));
	}
	let amount = positive(request.amount_msat, "amount_msat")?;
	if let (Some(amount), Some(asked)) = (amount, invoice.amount_milli_satoshis()) {
		if amount < asked {
			return Err(ApiError::bad_request("INVALID_AMOUNT", format!("amount_msat {amount} is less than the {asked} msat the invoice asks")));
		}
	}
	if amount.is_none() && invoice.amount_milli_satoshis().is_none() {
		return Err(ApiError::bad_request("AMOUNT_REQUIRED", "the invoice has no amount: give amount_msat"));
	}
	let wait = wait_of(request.wait_secs)?;
	let route = fee_limit(request.max_fee_msat)?;
	let node = Arc::clone(&state.node);
	let id = blocking(move || match amount {
		Some(amount) => node.bolt11_payment().send_using_amount(&invoice, amount, route),
		None => node.bolt11_payment().send(&invoice, route),
	})
	.await?
	.map_err(|error| ApiError::from_ldk(error, "paying the invoice"))?;
	payment_answer(&state, id, wait).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysendRequest {
	pubkey: String,
	amount_msat: u64,
	/// Chosen by the caller, so that the payment hash is known before anything is sent.
	preimage: Option<String>,
	max_fee_msat: Option<u64>,
	wait_secs: Option<u64>,
}

async fn pay_keysend(State(state): AppStateRef, Body(request): Body<KeysendRequest>) -> ApiResult<Response> {
	let node_id = pubkey(&request.pubkey, "pubkey")?;
	let amount = positive(Some(request.amount_msat), "amount_msat")?.expect("given");
	if node_id == state.node.node_id() {
		return Err(ApiError::bad_request("SELF_PAYMENT", "a keysend payment needs another node; give its pubkey"));
	}
	let preimage = request
		.preimage
		.as_deref()
		.map(|text| from_hex::<32>(text).map(PaymentPreimage).ok_or_else(|| ApiError::bad_request("INVALID_PREIMAGE", "preimage must be 32 bytes as 64 hex characters")))
		.transpose()?;
	let wait = wait_of(request.wait_secs)?;
	let route = fee_limit(request.max_fee_msat)?;
	let node = Arc::clone(&state.node);
	let id = blocking(move || match preimage {
		Some(preimage) => node.spontaneous_payment().send_with_preimage(amount, node_id, preimage, route),
		None => node.spontaneous_payment().send(amount, node_id, route),
	})
		.await?
		.map_err(|error| ApiError::from_ldk(error, &format!("sending {amount} msat to {node_id}")))?;
	payment_answer(&state, id, wait).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bolt12PayRequest {
	offer: String,
	amount_msat: Option<u64>,
	payer_note: Option<String>,
	wait_secs: Option<u64>,
}

async fn pay_bolt12(State(state): AppStateRef, Body(request): Body<Bolt12PayRequest>) -> ApiResult<Response> {
	let offer = Offer::from_str(request.offer.trim())
		.map_err(|error| ApiError::bad_request("INVALID_OFFER", format!("offer is not a BOLT12 offer ({error:?})")))?;
	let amount = positive(request.amount_msat, "amount_msat")?;
	let asked = match offer.amount() {
		Some(OfferAmount::Bitcoin { amount_msats }) => Some(amount_msats),
		Some(OfferAmount::Currency { .. }) => return Err(ApiError::bad_request("UNSUPPORTED_CURRENCY", "only offers in bitcoin can be paid")),
		None => None,
	};
	if let (Some(amount), Some(asked)) = (amount, asked) {
		if amount < asked {
			return Err(ApiError::bad_request("INVALID_AMOUNT", format!("amount_msat {amount} is less than the {asked} msat the offer asks")));
		}
	}
	if amount.is_none() && asked.is_none() {
		return Err(ApiError::bad_request("AMOUNT_REQUIRED", "the offer has no amount: give amount_msat"));
	}
	if offer.is_expired() {
		return Err(ApiError::bad_request("OFFER_EXPIRED", "the offer has expired"));
	}
	let wait = wait_of(request.wait_secs)?;
	let node = Arc::clone(&state.node);
	let note = request.payer_note;
	let id = blocking(move || match amount {
		Some(amount) => node.bolt12_payment().send_using_amount(&offer, amount, None, note, None),
		None => node.bolt12_payment().send(&offer, None, note, None),
	})
	.await?
	.map_err(|error| ApiError::from_ldk(error, "paying the offer"))?;
	payment_answer(&state, id, wait).await
}

async fn list_payments(State(state): AppStateRef) -> Json<Value> {
	let mut payments = state.node.list_payments();
	payments.sort_by_key(|payment| std::cmp::Reverse(payment.latest_update_timestamp));
	Json(json!({ "payments": payments.iter().map(|payment| payment_value(&state, payment)).collect::<Vec<_>>() }))
}

async fn get_payment(State(state): AppStateRef, id: Result<Path<String>, PathRejection>) -> ApiResult<Json<Value>> {
	let id = hash32(&path_param(id)?, "the payment id or hash")?;
	let payment = state
		.node
		.payment(&PaymentId(id))
		.or_else(|| state.node.list_payments().into_iter().find(|payment| json::payment_hash(payment) == Some(id)))
		.ok_or_else(|| ApiError::not_found("PAYMENT_NOT_FOUND", "this node has no payment with that id or payment hash"))?;
	Ok(Json(payment_value(&state, &payment)))
}

// ---- events -----------------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
	since: Option<u64>,
}

/// Server-sent events of the event log, from `since` (or Last-Event-ID) on, then live; or, with
/// `Accept: application/json`, the entries after `since` as one JSON answer.
async fn events(State(state): AppStateRef, headers: HeaderMap, query: Result<Query<EventsQuery>, QueryRejection>) -> ApiResult<Response> {
	let Query(query) = query.map_err(|rejection| ApiError::bad_request("INVALID_QUERY", format!("{}; the query takes since=<event id>", rejection.body_text())))?;
	let last_event_id = headers.get("last-event-id").and_then(|value| value.to_str().ok());
	let since = match (query.since, last_event_id) {
		(Some(since), _) => since,
		(None, Some(text)) => text.trim().parse::<u64>().map_err(|_| ApiError::bad_request("INVALID_LAST_EVENT_ID", "Last-Event-ID must be an event id"))?,
		(None, None) => state.events.latest_id(),
	};
	let wants_json = headers
		.get(header::ACCEPT)
		.and_then(|value| value.to_str().ok())
		.is_some_and(|accept| accept.contains("application/json") && !accept.contains("text/event-stream"));
	if wants_json {
		return Ok(Json(json!({ "events": state.events.since(query.since.unwrap_or(0)), "latest_id": state.events.latest_id() })).into_response());
	}

	struct Cursor {
		state: Arc<AppState>,
		next: u64,
		pending: std::collections::VecDeque<Value>,
		latest: watch::Receiver<u64>,
		stopping: watch::Receiver<bool>,
	}
	let cursor = Cursor {
		latest: state.events.subscribe(),
		stopping: state.stopping.clone(),
		state: Arc::clone(&state),
		next: since,
		pending: Default::default(),
	};
	let stream = futures_util::stream::unfold(cursor, |mut cursor| async move {
		loop {
			if let Some(entry) = cursor.pending.pop_front() {
				let id = entry.get("id").and_then(Value::as_u64).unwrap_or(cursor.next);
				cursor.next = id;
				let kind = entry.get("type").and_then(Value::as_str).unwrap_or("event").to_string();
				let event = SseEvent::default().id(id.to_string()).event(kind).data(entry.to_string());
				return Some((Ok::<_, Infallible>(event), cursor));
			}
			cursor.pending.extend(cursor.state.events.since(cursor.next));
			if !cursor.pending.is_empty() {
				continue;
			}
			if *cursor.stopping.borrow() {
				return None;
			}
			tokio::select! {
				changed = cursor.latest.changed() => if changed.is_err() { return None },
				_ = cursor.stopping.changed() => return None,
			}
		}
	});
	Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response())
}
