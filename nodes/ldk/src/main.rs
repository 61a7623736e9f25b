//! reglab-ldk: an LDK node (ldk-node 0.7.1) behind a small HTTP JSON API, for reglab's labs.
//! See README.md for the command line, the API and the decisions.

mod api;
mod error;
mod events;
mod invoices;
mod json;
mod preimages;
mod settings;

use std::future::IntoFuture;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ldk_node::config::{AnchorChannelsConfig, BackgroundSyncConfig, Config, ElectrumSyncConfig, EsploraSyncConfig};
use ldk_node::logger::LogLevel;
use ldk_node::{Builder, Node};
use tokio::sync::watch;

use crate::api::AppState;
use crate::settings::{ChainSource, Settings};

fn main() {
	let args: Vec<String> = std::env::args().skip(1).collect();
	if args.iter().any(|arg| arg == "--help" || arg == "-h") {
		print!("{}", settings::usage());
		return;
	}
	let settings = match settings::parse(&args, |name| std::env::var(name).ok()) {
		Ok(settings) => settings,
		Err(message) => {
			eprintln!("reglab-ldk: {message}");
			std::process::exit(2);
		},
	};
	let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().thread_name("reglab-ldk").build();
	let runtime = match runtime {
		Ok(runtime) => runtime,
		Err(error) => {
			eprintln!("reglab-ldk: could not start the async runtime: {error}");
			std::process::exit(1);
		},
	};
	let code = runtime.block_on(run(settings));
	// Background work LDK may still hold (timers, sockets) must not keep the process alive.
	runtime.shutdown_timeout(Duration::from_secs(2));
	std::process::exit(code);
}

fn log_level(name: &str) -> LogLevel {
	match name {
		"error" => LogLevel::Error,
		"warn" => LogLevel::Warn,
		"debug" => LogLevel::Debug,
		"trace" => LogLevel::Trace,
		"gossip" => LogLevel::Gossip,
		_ => LogLevel::Info,
	}
}

fn build_node(settings: &Settings) -> Result<Node, String> {
	let data_dir = settings.data_dir.to_string_lossy().to_string();
	std::fs::create_dir_all(&settings.data_dir).map_err(|error| format!("cannot create --data-dir {data_dir}: {error}"))?;
	let mut config = Config::default();
	// Without anchors LDK negotiates static_remotekey channels; see README (fees on regtest).
	config.anchor_channels_config = settings
		.anchor_channels
		.then(|| AnchorChannelsConfig { trusted_peers_no_reserve: Vec::new(), per_channel_reserve_sats: settings.anchor_reserve_sat });
	let mut builder = Builder::from_config(config);
	builder
		.set_runtime(tokio::runtime::Handle::current())
		.set_storage_dir_path(data_dir.clone())
		.set_entropy_seed_path(format!("{data_dir}/keys_seed"))
		.set_filesystem_logger(Some(format!("{data_dir}/ldk_node.log")), Some(log_level(&settings.log_level)))
		.set_network(settings.network)
		.set_gossip_source_p2p();
	builder.set_listening_addresses(vec![settings.p2p_listen.clone()]).map_err(|error| format!("--p2p-listen: {error}"))?;
	if let Some(address) = &settings.announce_address {
		builder.set_announcement_addresses(vec![address.clone()]).map_err(|error| format!("--announce-address: {error}"))?;
	}
	builder.set_node_alias(settings.alias.clone()).map_err(|error| format!("--alias: {error}"))?;
	let interval = settings.sync_interval_secs;
	let background = Some(BackgroundSyncConfig {
		onchain_wallet_sync_interval_secs: interval,
		lightning_wallet_sync_interval_secs: interval,
		fee_rate_cache_update_interval_secs: interval.max(60),
	});
	match &settings.chain_source {
		ChainSource::Electrum(url) => {
			builder.set_chain_source_electrum(url.clone(), Some(ElectrumSyncConfig { background_sync_config: background }));
		},
		ChainSource::Esplora(url) => {
			builder.set_chain_source_esplora(url.clone(), Some(EsploraSyncConfig { background_sync_config: background }));
		},
	}
	builder.build().map_err(|error| format!("LDK could not build the node from {data_dir}: {error}"))
}

async fn run(settings: Settings) -> i32 {
	let started = Instant::now();
	let listener = match tokio::net::TcpListener::bind(settings.api_listen).await {
		Ok(listener) => listener,
		Err(error) => {
			eprintln!("reglab-ldk: cannot listen on --api-listen {}: {error}", settings.api_listen);
			return 1;
		},
	};
	let node = {
		let settings = settings.clone();
		// Building and starting read the data folder and reach the chain source: blocking work.
		let built = tokio::task::spawn_blocking(move || -> Result<Arc<Node>, String> {
			let node = Arc::new(build_node(&settings)?);
			node.start().map_err(|error| {
				format!("LDK could not start: {error} (is the chain source {} up? is --p2p-listen {} free?)", settings.chain_source.url(), settings.p2p_listen)
			})?;
			Ok(node)
		})
		.await;
		match built {
			Ok(Ok(node)) => node,
			Ok(Err(message)) => {
				eprintln!("reglab-ldk: {message}");
				return 1;
			},
			Err(error) => {
				eprintln!("reglab-ldk: starting the node failed: {error}");
				return 1;
			},
		}
	};
	let events = match events::EventLog::open(&settings.data_dir) {
		Ok(events) => events,
		Err(error) => {
			eprintln!("reglab-ldk: cannot open the event log in {}: {error}", settings.data_dir.display());
			let _ = tokio::task::spawn_blocking(move || node.stop()).await;
			return 1;
		},
	};
	let stores = preimages::Preimages::open(&settings.data_dir, "invoice-preimages.jsonl")
		.and_then(|own| Ok((own, preimages::Preimages::open(&settings.data_dir, "hold-preimages.jsonl")?)));
	let invoices = match stores {
		Ok((own, settled)) => Arc::new(invoices::Invoices::new(Arc::clone(&node), own, settled)),
		Err(error) => {
			eprintln!("reglab-ldk: cannot open the invoice preimages in {}: {error}", settings.data_dir.display());
			let _ = tokio::task::spawn_blocking(move || node.stop()).await;
			return 1;
		},
	};
	let (stop_sender, stopping) = watch::channel(false);
	let state = Arc::new(AppState {
		node: Arc::clone(&node),
		events: Arc::clone(&events),
		invoices: Arc::clone(&invoices),
		settings: settings.clone(),
		synced: AtomicBool::new(false),
		stopping: stopping.clone(),
	});
	let event_task = tokio::spawn(events::run(Arc::clone(&node), Arc::clone(&events), invoices, stopping.clone()));

	// The first sync makes the node ready; until it succeeds /health answers 503, and it is retried.
	let first_sync = {
		let state = Arc::clone(&state);
		let mut stopping = stopping.clone();
		tokio::spawn(async move {
			loop {
				let node = Arc::clone(&state.node);
				match tokio::task::spawn_blocking(move || node.sync_wallets()).await {
					Ok(Ok(())) => {
						state.synced.store(true, Ordering::SeqCst);
						return;
					},
					Ok(Err(error)) => eprintln!("reglab-ldk: first sync with {} failed: {error}; retrying", state.settings.chain_source.url()),
					Err(error) => eprintln!("reglab-ldk: first sync task failed: {error}"),
				}
				tokio::select! {
					_ = tokio::time::sleep(Duration::from_secs(1)) => {},
					_ = stopping.wait_for(|stop| *stop) => return,
				}
			}
		})
	};
	let _ = tokio::time::timeout(Duration::from_secs(5), async {
		while !state.synced.load(Ordering::SeqCst) && !first_sync.is_finished() {
			tokio::time::sleep(Duration::from_millis(20)).await;
		}
	})
	.await;
	println!(
		"reglab-ldk: node {} ready in {} ms (synced: {}), API on http://{}, p2p on {}, chain source {}",
		node.node_id(),
		started.elapsed().as_millis(),
		state.synced.load(Ordering::SeqCst),
		settings.api_listen,
		settings.p2p_listen,
		settings.chain_source.url(),
	);

	let server = axum::serve(listener, api::router(Arc::clone(&state))).with_graceful_shutdown({
		let stop_sender = stop_sender.clone();
		async move {
			shutdown_signal().await;
			eprintln!("reglab-ldk: stopping");
			stop_sender.send_replace(true);
		}
	});
	let mut server = std::pin::pin!(server.into_future());
	let mut stopping_watch = stopping.clone();
	let served = tokio::select! {
		result = &mut server => result,
		// Once stopping, give open connections a moment to finish, then stop regardless.
		_ = async {
			let _ = stopping_watch.wait_for(|stop| *stop).await;
			tokio::time::sleep(Duration::from_secs(5)).await;
		} => Ok(()),
	};
	let code = match served {
		Ok(()) => 0,
		Err(error) => {
			eprintln!("reglab-ldk: the API server failed: {error}");
			1
		},
	};
	stop_sender.send_replace(true);
	first_sync.abort();
	let _ = event_task.await;
	match tokio::task::spawn_blocking(move || node.stop()).await {
		Ok(Ok(())) => eprintln!("reglab-ldk: stopped"),
		Ok(Err(error)) => eprintln!("reglab-ldk: LDK did not stop cleanly: {error}"),
		Err(error) => eprintln!("reglab-ldk: stopping LDK failed: {error}"),
	}
	code
}

async fn shutdown_signal() {
	use tokio::signal::unix::{signal, SignalKind};
	let (mut term, mut int) = match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
		(Ok(term), Ok(int)) => (term, int),
		_ => {
			// Without signal handlers the process still dies on SIGTERM, just not cleanly.
			std::future::pending::<()>().await;
			return;
		},
	};
	tokio::select! {
		_ = term.recv() => {},
		_ = int.recv() => {},
	}
}
