//! Preimages by payment hash in an append-only JSON-lines file of the data folder, each written to
//! disk before it is used. LDK's payment record of an invoice created for a hash keeps no preimage,
//! even after `claim_for_hash`: the daemon keeps them (see invoices.rs).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Mutex;

use serde_json::{json, Value};

pub struct Preimages {
	file: Mutex<File>,
	by_hash: Mutex<HashMap<String, String>>,
}

impl Preimages {
	pub fn open(dir: &Path, file_name: &str) -> std::io::Result<Self> {
		let path = dir.join(file_name);
		let mut by_hash = HashMap::new();
		if path.exists() {
			for line in BufReader::new(File::open(&path)?).lines() {
				if let Ok(entry) = serde_json::from_str::<Value>(&line?) {
					if let (Some(hash), Some(preimage)) = (entry["payment_hash"].as_str(), entry["preimage"].as_str()) {
						by_hash.insert(hash.to_string(), preimage.to_string());
					}
				}
			}
		}
		let file = OpenOptions::new().create(true).append(true).open(&path)?;
		Ok(Self { file: Mutex::new(file), by_hash: Mutex::new(by_hash) })
	}

	pub fn get(&self, hash: &str) -> Option<String> {
		self.by_hash.lock().unwrap().get(hash).cloned()
	}

	/// Records a preimage (on disk when this returns).
	pub fn insert(&self, hash: &str, preimage: &str) -> std::io::Result<()> {
		let mut line = json!({ "payment_hash": hash, "preimage": preimage }).to_string();
		line.push('\n');
		{
			let mut file = self.file.lock().unwrap();
			file.write_all(line.as_bytes())?;
			file.sync_data()?;
		}
		self.by_hash.lock().unwrap().insert(hash.to_string(), preimage.to_string());
		Ok(())
	}
}
