/** Esplora's JSON shapes (Blockstream esplora API.md), as the adapter serves them. */
export interface TxStatus {
  confirmed: boolean;
  block_height?: number;
  block_hash?: string;
  /** Unix seconds. */
  block_time?: number;
}

export interface EsploraOutput {
  scriptpubkey: string;
  scriptpubkey_asm: string;
  scriptpubkey_type: string;
  scriptpubkey_address?: string;
  /** Satoshis. */
  value: number;
}

export interface EsploraInput {
  txid: string;
  vout: number;
  /** null for a coinbase input. */
  prevout: EsploraOutput | null;
  scriptsig: string;
  scriptsig_asm: string;
  witness?: string[];
  is_coinbase: boolean;
  sequence: number;
}

export interface EsploraTx {
  txid: string;
  version: number;
  locktime: number;
  size: number;
  weight: number;
  /** Satoshis; 0 for a coinbase. */
  fee: number;
  vin: EsploraInput[];
  vout: EsploraOutput[];
  status: TxStatus;
}

export interface EsploraUtxo {
  txid: string;
  vout: number;
  value: number;
  status: TxStatus;
}

export interface Stats {
  funded_txo_count: number;
  funded_txo_sum: number;
  spent_txo_count: number;
  spent_txo_sum: number;
  tx_count: number;
}

export interface Outspend {
  spent: boolean;
  txid?: string;
  vin?: number;
  status?: TxStatus;
}

/** Esplora's block object. */
export interface EsploraBlock {
  id: string;
  height: number;
  version: number;
  timestamp: number;
  tx_count: number;
  size: number;
  weight: number;
  merkle_root: string;
  /** null for the genesis block. */
  previousblockhash: string | null;
  /** BIP-113 median time past, Unix seconds. */
  mediantime: number;
  nonce: number;
  bits: number;
  difficulty: number;
}

export interface BlockStatus {
  in_best_chain: boolean;
  height?: number;
  next_best?: string;
}

/** Electrum's get_merkle answer, which Esplora's /tx/:txid/merkle-proof also gives. */
export interface MerkleProof {
  block_height: number;
  merkle: string[];
  pos: number;
}
