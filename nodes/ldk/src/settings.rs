//! The daemon's settings: command-line flags, each with an environment variable as a fallback
//! (a flag wins over its variable), so the same binary runs as a local process or in a container.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

use ldk_node::bitcoin::Network;
use ldk_node::lightning::ln::msgs::SocketAddress;

/// Where LDK takes its chain data from.
#[derive(Debug, Clone)]
pub enum ChainSource {
	/// An Electrum server: `tcp://host:port` or `ssl://host:port`.
	Electrum(String),
	/// An Esplora HTTP API: `http://host:port/api`.
	Esplora(String),
}

impl ChainSource {
	pub fn kind(&self) -> &'static str {
		match self {
			ChainSource::Electrum(_) => "electrum",
			ChainSource::Esplora(_) => "esplora",
		}
	}
	pub fn url(&self) -> &str {
		match self {
			ChainSource::Electrum(url) | ChainSource::Esplora(url) => url,
		}
	}
}

#[derive(Debug, Clone)]
pub struct Settings {
	pub data_dir: PathBuf,
	pub api_listen: SocketAddr,
	pub p2p_listen: SocketAddress,
	pub network: Network,
	pub chain_source: ChainSource,
	pub alias: String,
	pub announce_address: Option<SocketAddress>,
	pub log_level: String,
	/// Seconds between LDK's background wallet syncs (LDK's floor is 10).
	pub sync_interval_secs: u64,
	/// Negotiate anchor channels (option_anchors_zero_fee_htlc_tx).
	pub anchor_channels: bool,
	/// On-chain reserve LDK keeps per anchor channel (LDK's default is 25,000 sat).
	pub anchor_reserve_sat: u64,
}

/// One setting: its flag, its environment variable, and what it means (for --help).
struct Option_ {
	flag: &'static str,
	env: &'static str,
	value: &'static str,
	help: &'static str,
}

const OPTIONS: &[Option_] = &[
	Option_ { flag: "--data-dir", env: "REGLAB_LDK_DATA_DIR", value: "DIR", help: "where the seed, the wallet, the channels and the event log live (required)" },
	Option_ { flag: "--api-listen", env: "REGLAB_LDK_API_LISTEN", value: "IP:PORT", help: "the HTTP JSON API (default 127.0.0.1:3000)" },
	Option_ { flag: "--p2p-listen", env: "REGLAB_LDK_P2P_LISTEN", value: "HOST:PORT", help: "the Lightning peer-to-peer port (default 127.0.0.1:9735)" },
	Option_ { flag: "--network", env: "REGLAB_LDK_NETWORK", value: "NAME", help: "regtest (default), signet, testnet or bitcoin" },
	Option_ { flag: "--chain-source", env: "REGLAB_LDK_CHAIN_SOURCE", value: "SOURCE", help: "electrum=tcp://HOST:PORT or esplora=http://HOST:PORT/api (required)" },
	Option_ { flag: "--alias", env: "REGLAB_LDK_ALIAS", value: "NAME", help: "node alias, at most 32 bytes (default reglab-ldk); needed to announce channels" },
	Option_ { flag: "--announce-address", env: "REGLAB_LDK_ANNOUNCE_ADDRESS", value: "HOST:PORT", help: "address announced to the network (default: the --p2p-listen address)" },
	Option_ { flag: "--log-level", env: "REGLAB_LDK_LOG_LEVEL", value: "LEVEL", help: "LDK's log level in DIR/ldk_node.log: error, warn, info (default), debug, trace, gossip" },
	Option_ { flag: "--sync-interval-secs", env: "REGLAB_LDK_SYNC_INTERVAL_SECS", value: "N", help: "seconds between background wallet syncs, at least 10 (default 10); POST /v1/sync syncs at once" },
	Option_ { flag: "--anchor-channels", env: "REGLAB_LDK_ANCHOR_CHANNELS", value: "true|false", help: "negotiate anchor channels (default false: see README, fees on regtest)" },
	Option_ { flag: "--anchor-reserve-sat", env: "REGLAB_LDK_ANCHOR_RESERVE_SAT", value: "N", help: "with anchor channels: on-chain reserve kept per channel (default 25000, LDK's)" },
];

pub fn usage() -> String {
	let mut text = String::from(
		"reglab-ldk: an LDK node (ldk-node 0.7.1) with an HTTP JSON API\n\nusage: reglab-ldk --data-dir DIR --chain-source SOURCE [options]\n\n",
	);
	for option in OPTIONS {
		let left = format!("  {} {}", option.flag, option.value);
		text.push_str(&format!("{left:<34} {}\n{:<34} env {}\n", option.help, "", option.env));
	}
	text.push_str("  --help                             this text\n");
	text
}

/// Parses `args` (without the program name), falling back to `env` for each missing flag.
pub fn parse(args: &[String], env: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
	let mut given: Vec<(&'static str, String)> = Vec::new();
	let mut i = 0;
	while i < args.len() {
		let arg = &args[i];
		let (flag, inline) = match arg.split_once('=') {
			Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
			_ => (arg.as_str(), None),
		};
		let option = OPTIONS
			.iter()
			.find(|option| option.flag == flag)
			.ok_or_else(|| format!("unknown argument \"{arg}\" (see --help)"))?;
		let value = match inline {
			Some(value) => value,
			None => {
				i += 1;
				args.get(i).cloned().ok_or_else(|| format!("{} needs a value: {} {}", option.flag, option.flag, option.value))?
			},
		};
		given.push((option.flag, value));
		i += 1;
	}
	let get = |flag: &str| -> Option<String> {
		let option = OPTIONS.iter().find(|option| option.flag == flag).expect("known flag");
		given
			.iter()
			.rev()
			.find(|(name, _)| *name == flag)
			.map(|(_, value)| value.clone())
			.or_else(|| env(option.env).filter(|value| !value.is_empty()))
	};

	let data_dir = get("--data-dir").ok_or("--data-dir DIR is required (or REGLAB_LDK_DATA_DIR)")?;
	let api_listen = get("--api-listen").unwrap_or_else(|| "127.0.0.1:3000".into());
	let api_listen = SocketAddr::from_str(&api_listen)
		.map_err(|_| format!("--api-listen must be IP:PORT such as 127.0.0.1:3000, not \"{api_listen}\""))?;
	let p2p_listen = get("--p2p-listen").unwrap_or_else(|| "127.0.0.1:9735".into());
	let p2p_listen = SocketAddress::from_str(&p2p_listen)
		.map_err(|_| format!("--p2p-listen must be HOST:PORT such as 127.0.0.1:9735, not \"{p2p_listen}\""))?;
	let network = get("--network").unwrap_or_else(|| "regtest".into());
	let network = match network.as_str() {
		"regtest" => Network::Regtest,
		"signet" => Network::Signet,
		"testnet" => Network::Testnet,
		"bitcoin" | "mainnet" => Network::Bitcoin,
		other => return Err(format!("--network must be regtest, signet, testnet or bitcoin, not \"{other}\"")),
	};
	let chain_source = get("--chain-source")
		.ok_or("--chain-source is required: electrum=tcp://HOST:PORT or esplora=http://HOST:PORT/api (or REGLAB_LDK_CHAIN_SOURCE)")?;
	let chain_source = match chain_source.split_once('=') {
		Some(("electrum", url)) if url.starts_with("tcp://") || url.starts_with("ssl://") => ChainSource::Electrum(url.to_string()),
		Some(("esplora", url)) if url.starts_with("http://") || url.starts_with("https://") => {
			ChainSource::Esplora(url.trim_end_matches('/').to_string())
		},
		_ => {
			return Err(format!(
				"--chain-source must be electrum=tcp://HOST:PORT or esplora=http://HOST:PORT/api, not \"{chain_source}\""
			))
		},
	};
	let alias = get("--alias").unwrap_or_else(|| "reglab-ldk".into());
	if alias.trim().is_empty() || alias.trim().len() > 32 {
		return Err(format!("--alias must be 1 to 32 bytes, not \"{alias}\""));
	}
	let announce_address = match get("--announce-address") {
		None => None,
		Some(address) => Some(
			SocketAddress::from_str(&address)
				.map_err(|_| format!("--announce-address must be HOST:PORT, not \"{address}\""))?,
		),
	};
	let log_level = get("--log-level").unwrap_or_else(|| "info".into());
	if !["error", "warn", "info", "debug", "trace", "gossip"].contains(&log_level.as_str()) {
		return Err(format!("--log-level must be error, warn, info, debug, trace or gossip, not \"{log_level}\""));
	}
	let number = |flag: &str, default: u64| -> Result<u64, String> {
		match get(flag) {
			None => Ok(default),
			Some(text) => text.parse::<u64>().map_err(|_| format!("{flag} must be a whole number, not \"{text}\"")),
		}
	};
	let sync_interval_secs = number("--sync-interval-secs", 10)?;
	if sync_interval_secs < 10 {
		return Err("--sync-interval-secs must be at least 10 (LDK's floor); call POST /v1/sync to sync at once".into());
	}
	let anchor_channels = match get("--anchor-channels").as_deref() {
		None | Some("false") => false,
		Some("true") => true,
		Some(other) => return Err(format!("--anchor-channels must be true or false, not \"{other}\"")),
	};
	let anchor_reserve_sat = number("--anchor-reserve-sat", 25_000)?;

	Ok(Settings {
		data_dir: PathBuf::from(data_dir),
		api_listen,
		p2p_listen,
		network,
		chain_source,
		alias: alias.trim().to_string(),
		announce_address,
		log_level,
		sync_interval_secs,
		anchor_channels,
		anchor_reserve_sat,
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	fn args(text: &str) -> Vec<String> {
		text.split_whitespace().map(String::from).collect()
	}

	#[test]
	fn flags_win_over_env() {
		let settings = parse(
			&args("--data-dir /tmp/x --chain-source electrum=tcp://127.0.0.1:50001 --api-listen=127.0.0.1:4000"),
			|name| (name == "REGLAB_LDK_API_LISTEN").then(|| "127.0.0.1:5000".to_string()),
		)
		.unwrap();
		assert_eq!(settings.api_listen.port(), 4000);
		assert_eq!(settings.chain_source.kind(), "electrum");
		assert_eq!(settings.alias, "reglab-ldk");
		assert!(!settings.anchor_channels);
	}

	#[test]
	fn env_alone_is_enough() {
		let settings = parse(&[], |name| match name {
			"REGLAB_LDK_DATA_DIR" => Some("/tmp/y".into()),
			"REGLAB_LDK_CHAIN_SOURCE" => Some("esplora=http://127.0.0.1:3002/api/".into()),
			_ => None,
		})
		.unwrap();
		assert_eq!(settings.chain_source.url(), "http://127.0.0.1:3002/api");
	}

	#[test]
	fn bad_values_say_what_to_give() {
		let error = parse(&args("--data-dir d --chain-source bitcoind=x"), |_| None).unwrap_err();
		assert!(error.contains("electrum=tcp://"), "{error}");
		let error = parse(&args("--data-dir d --chain-source electrum=tcp://h:1 --sync-interval-secs 2"), |_| None).unwrap_err();
		assert!(error.contains("at least 10"), "{error}");
		assert!(parse(&args("--bogus 1"), |_| None).unwrap_err().contains("unknown argument"));
	}
}
