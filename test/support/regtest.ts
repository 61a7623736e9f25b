// Real btcd + lnd nodes for tests, brought up by the lab's own process runtime in a temp folder.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { chainConfigToEnv } from '../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../lib/chain/types.js';
import type { AuthenticatedLnd } from 'ln-service';
import { connectLnd, lndCredentialsToEnv, type LndCredentials } from '../../lib/lightning/lnd/connection.js';
import { chainRpcFor } from '../../control-plane/src/nodes/btcd/index.js';
import { nodeBinary } from '../../control-plane/src/home.js';
import { bringUp, newLabState } from '../../control-plane/src/lab/bring-up.js';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import { tearDown } from '../../control-plane/src/lab/tear-down.js';
import { processRuntimeOptions } from '../../control-plane/src/runtimes/process/host.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { stringify } from 'yaml';

export interface RegtestOptions {
  /** lnd node names (default none). */
  lnd?: string[];
  /** ldk node names (reglab-ldk: on the indexer, which they then need, or on the chain adapter). */
  ldk?: string[];
  ldkChainSource?: 'electrum' | 'esplora';
  /** rgb node names (RGB wallets on rgb-lib; they need the indexer). */
  rgb?: string[];
  channels?: { from: string; to: string; capacity_sat: number; push_sat?: number }[];
  fundingSat?: number;
  indexer?: boolean;
  /** lab.yaml's services section, as a file would write it (defaults fill the rest). */
  services?: Record<string, Record<string, unknown>>;
}

export interface Regtest {
  session: LabSession;
  lab: LabSession['lab'];
  chain: LabSession['chain'];
  chainRpc: ChainRpcConfig;
  /** CHAIN_* variables a lab service reads. */
  chainEnv: Record<string, string>;
  /** An ln-service connection to an lnd node of the lab. */
  lnd(node: string): AuthenticatedLnd;
  lndCredentials(node: string): LndCredentials;
  /** LND_* variables a lab service reads. */
  lndEnv(node: string): Record<string, string>;
  /** host:port of a service's named port. */
  address(service: string, port: string): string;
  events: LabEvent[];
  stop(): Promise<void>;
}

export async function startRegtest(options: RegtestOptions = {}): Promise<Regtest> {
  for (const binary of ['btcd', 'lnd'] as const) {
    if (!existsSync(nodeBinary(binary)))
      throw new Error(`${nodeBinary(binary)} is missing: build the node binaries with \`bash scripts/build-nodes.sh\``);
  }
  const dir = mkdtempSync(join(tmpdir(), 'reglab-test-'));
  chmodSync(dir, 0o755);
  const yaml = stringify({
    name: 'test',
    indexer: { enabled: options.indexer ?? false },
    nodes: [
      ...(options.lnd ?? []).map((name) => ({ name, kind: 'lnd', funding_sat: options.fundingSat ?? 10_000_000 })),
      ...(options.ldk ?? []).map((name) => ({
        name,
        kind: 'ldk',
        funding_sat: options.fundingSat ?? 10_000_000,
        chain_source: options.ldkChainSource,
      })),
      ...(options.rgb ?? []).map((name) => ({ name, kind: 'rgb', funding_sat: options.fundingSat ?? 10_000_000 })),
    ],
    channels: options.channels ?? [],
    services: options.services ?? {},
  });
  const spec = parseLabSpec(yaml, 'test-lab.yaml');
  const lab = newLabState(spec, yaml, join(dir, 'lab'));
  const events: LabEvent[] = [];
  const runtimeOptions = processRuntimeOptions();
  let session: LabSession;
  try {
    session = await bringUp(lab, {
      runtimeOptions,
      onEvent: (event) => events.push(event),
      persist: async () => undefined,
    });
  } catch (error) {
    await tearDown(lab, runtimeOptions.runtime, { volumes: true });
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const chainRpc = chainRpcFor(session, session.host);
  const lnds = new Map<string, AuthenticatedLnd>();
  const lndCredentials = (node: string): LndCredentials => ({
    socket: session.host.reach(node, 'grpc'),
    certBase64: session.credentials.require(node, 'certBase64'),
    macaroonHex: session.credentials.require(node, 'macaroonHex'),
  });
  return {
    session,
    lab,
    chain: session.chain,
    chainRpc,
    chainEnv: chainConfigToEnv(chainRpc),
    lnd: (node) => {
      const made = lnds.get(node) ?? connectLnd(lndCredentials(node));
      lnds.set(node, made);
      return made;
    },
    lndCredentials,
    lndEnv: (node) => lndCredentialsToEnv(lndCredentials(node)),
    address: (service, port) => session.host.reach(service, port),
    events,
    async stop() {
      session.close();
      await tearDown(lab, runtimeOptions.runtime, { volumes: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
