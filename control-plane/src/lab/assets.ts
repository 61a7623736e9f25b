// The lab's RGB assets, through each asset node's face (AssetHolder): issuing, sending between
// nodes, what each node holds. A request names an asset by the lab's ticker for it (lab.yaml's, or
// the one given to `reglab asset issue`) or by its asset id.
import { conflict, invalid } from '../../../lib/errors.js';
import type { AssetHolder, AssetSchema, HeldAsset } from '../nodes/node.js';
import { ASSET_NODE_KINDS, supplyProblem } from '../spec/assets.js';
import { settleAssetTransfer, withFreeUtxos, type OnMined } from './asset-transfer.js';
import { requireReady } from './operations.js';
import type { LabSession } from './session.js';

/** An asset node that is ready. */
export function readyHolder(session: LabSession, name: string): AssetHolder {
  requireReady(session, name);
  return session.assets(name);
}

/** asset id -> the lab's ticker for it. */
const labelsOf = (session: LabSession) =>
  new Map(Object.entries(session.lab.assets ?? {}).map(([ticker, assetId]) => [assetId, ticker]));

/** The asset id a request names: a ticker of the lab's assets, or an asset id (rgb:...). */
export function assetIdOf(session: LabSession, asset: string): string {
  const known = session.lab.assets?.[asset];
  if (known) return known;
  if (asset.startsWith('rgb:')) return asset;
  const tickers = Object.keys(session.lab.assets ?? {}).join(', ') || 'none';
  throw invalid(
    'NO_SUCH_ASSET',
    `lab ${session.lab.name} has no asset "${asset}" (its assets: ${tickers}); name one by its ticker or its asset id (rgb:...)`,
  );
}

export interface AssetIssueRequest {
  node: string;
  ticker: string;
  amount: number;
  name?: string;
  precision?: number;
  schema?: AssetSchema;
}

/** Issues an asset on a node and records it under its ticker. */
export async function issueAsset(
  session: LabSession,
  request: AssetIssueRequest,
  onMined?: OnMined,
): Promise<HeldAsset> {
  const assets = (session.lab.assets ??= {});
  if (assets[request.ticker])
    throw conflict(
      'ASSET_EXISTS',
      `lab ${session.lab.name} already has an asset ${request.ticker} (${assets[request.ticker]}): pick another ticker`,
    );
  const schema = request.schema ?? 'nia';
  const supply = supplyProblem(schema, request.amount);
  if (supply) throw invalid('INVALID_AMOUNT', supply);
  readyHolder(session, request.node);
  const issue = {
    schema,
    ticker: request.ticker,
    name: request.name ?? request.ticker,
    precision: request.precision ?? 0,
    amount: request.amount,
  };
  const issued = await withFreeUtxos(session, request.node, (holder) => holder.issueAsset(issue), onMined);
  assets[request.ticker] = issued.assetId;
  return { ...issued, ticker: request.ticker };
}

export interface AssetSendRequest {
  from: string;
  to: string;
  assetId: string;
  amount: number;
  /** Pay to a new output of the receiver's (a witness invoice) instead of a blinded UTXO of its own. */
  witness: boolean;
}

/** What a send needs, checked before anything moves: two ready asset nodes, and the sender able to spend the amount. */
export async function checkAssetSend(session: LabSession, request: AssetSendRequest): Promise<HeldAsset> {
  if (request.from === request.to) throw invalid('SAME_NODE', 'an asset transfer needs two different nodes');
  const sender = readyHolder(session, request.from);
  readyHolder(session, request.to);
  const label = labelsOf(session).get(request.assetId) ?? request.assetId;
  const held = (await sender.heldAssets()).find((asset) => asset.assetId === request.assetId);
  if (held?.schema === 'uda' && request.amount !== 1)
    throw invalid('INVALID_AMOUNT', `${label} is a uda asset, one unique token: its amount is 1`);
  if (!held || held.balance.spendable < request.amount)
    throw invalid(
      'INSUFFICIENT_ASSETS',
      `${request.from} can spend ${held?.balance.spendable ?? 0} of ${label}, not ${request.amount}`,
    );
  return held;
}

/** What a send job records before the steps after it, so a retry neither invoices nor sends twice. */
export interface AssetSendProgress {
  invoice?: string;
  recipientId?: string;
  txid?: string;
}

export interface AssetSendResult {
  txid: string;
  asset: string;
  assetId: string;
  amount: number;
  witness: boolean;
  /** Each side's settled balance of the asset afterwards. */
  balances: Record<string, number>;
}

/** An invoice of `to`, paid by `from`, mined and refreshed on both sides until settled. */
export async function sendAssetBetween(
  session: LabSession,
  request: AssetSendRequest,
  job: { progress: AssetSendProgress; record(step: AssetSendProgress): Promise<void>; onMined?: OnMined },
): Promise<AssetSendResult> {
  let { invoice, recipientId, txid } = job.progress;
  if (!invoice) {
    ({ invoice, recipientId } = await withFreeUtxos(
      session,
      request.to,
      (holder) => holder.assetInvoice(request.witness),
      job.onMined,
    ));
    await job.record({ invoice, recipientId });
  }
  const sender = readyHolder(session, request.from);
  // an earlier attempt may have sent before it could record the txid: the sender knows
  txid ??= (await sender.assetTransfers(request.assetId)).find(
    (transfer) => transfer.kind === 'Send' && transfer.recipientId === recipientId && transfer.status !== 'Failed',
  )?.txid;
  if (!txid) {
    const held = await checkAssetSend(session, request);
    txid = await sender.sendAsset({ assetId: request.assetId, schema: held.schema }, [
      { invoice, amount: request.amount },
    ]);
    await job.record({ txid });
  }
  await settleAssetTransfer(
    session,
    { assetId: request.assetId, txid, sender: request.from, receivers: [request.to] },
    job.onMined,
  );
  const settled = async (name: string) =>
    (await session.assets(name).heldAssets()).find((asset) => asset.assetId === request.assetId)?.balance.settled ?? 0;
  return {
    txid,
    asset: labelsOf(session).get(request.assetId) ?? request.assetId,
    assetId: request.assetId,
    amount: request.amount,
    witness: request.witness,
    balances: { [request.from]: await settled(request.from), [request.to]: await settled(request.to) },
  };
}

/** One asset as a node holds it, named by the lab's ticker when the lab has one. */
export interface HoldingView {
  ticker?: string;
  assetId: string;
  schema: AssetSchema;
  name: string;
  precision: number;
  settled: number;
  future: number;
  spendable: number;
}

export async function holdingsOf(session: LabSession, holder: AssetHolder): Promise<HoldingView[]> {
  const labels = labelsOf(session);
  return (await holder.heldAssets()).map((asset) => ({
    ticker: labels.get(asset.assetId) ?? asset.ticker,
    assetId: asset.assetId,
    schema: asset.schema,
    name: asset.name,
    precision: asset.precision,
    ...asset.balance,
  }));
}

/** The lab's nodes that hold assets. */
const assetNodes = (session: LabSession) =>
  session.lab.spec.nodes.filter((node) => ASSET_NODE_KINDS.includes(node.kind)).map((node) => node.name);

/** What each asset node holds (`node`: that one only); a node that is not ready shows its status. */
export async function assetBalances(
  session: LabSession,
  node?: string,
): Promise<{ node: string; status: string; assets?: HoldingView[] }[]> {
  if (node !== undefined)
    return [{ node, status: 'ready', assets: await holdingsOf(session, readyHolder(session, node)) }];
  return Promise.all(
    assetNodes(session).map(async (name) => {
      const status = session.lab.services[name].status;
      return status === 'ready'
        ? { node: name, status, assets: await holdingsOf(session, session.assets(name)) }
        : { node: name, status };
    }),
  );
}

export interface LabAssetView {
  ticker?: string;
  assetId: string;
  schema?: AssetSchema;
  name?: string;
  precision?: number;
  issuedSupply?: number;
  /** Settled balances by node (ready nodes only). */
  holders: Record<string, number>;
}

/** The lab's assets and every other asset its ready nodes hold, with who holds how much. */
export async function labAssets(session: LabSession): Promise<LabAssetView[]> {
  const labels = labelsOf(session);
  const views = new Map<string, LabAssetView>(
    [...labels].map(([assetId, ticker]) => [assetId, { ticker, assetId, holders: {} }]),
  );
  const ready = assetNodes(session).filter((name) => session.lab.services[name].status === 'ready');
  const holdings = await Promise.all(
    ready.map(async (name) => [name, await session.assets(name).heldAssets()] as const),
  );
  for (const [name, assets] of holdings) {
    for (const asset of assets) {
      const view = views.get(asset.assetId) ?? { ticker: asset.ticker, assetId: asset.assetId, holders: {} };
      Object.assign(view, {
        schema: asset.schema,
        name: asset.name,
        precision: asset.precision,
        issuedSupply: asset.issuedSupply,
      });
      view.holders[name] = asset.balance.settled;
      views.set(asset.assetId, view);
    }
  }
  return [...views.values()];
}
