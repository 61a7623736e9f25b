// lab.yaml's services.faucet.asset: the faucet gives `amount` of one of the lab's assets per claim,
// paid from `node`, which must hold that asset once the assets are handed out at bring-up.
import { assetAmount, assetNodeProblem, assetTicker, type AssetProblem, type RawAsset } from './assets.js';
import type { FaucetAssetSpec, NodeSpec } from './types.js';

export const faucetAssetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ticker', 'amount', 'node'],
  description: 'an RGB asset of this lab the faucet gives to RGB invoices',
  properties: {
    ticker: { ...assetTicker, description: "the ticker of one of this lab's assets, a fungible one (nia or cfa)" },
    amount: { ...assetAmount, description: "per claim, in the asset's smallest unit" },
    node: {
      type: 'string',
      description: 'the rgb or rln node the faucet pays from; it must hold the asset at bring-up',
    },
  },
} as const;

/** What `node` holds of `asset` once bring-up has handed it out. */
const heldAtBringUp = (asset: RawAsset, node: string) =>
  node === asset.issuer
    ? asset.supply - Object.values(asset.distribute).reduce((sum, amount) => sum + amount, 0)
    : (asset.distribute[node] ?? 0);

/** A fungible asset of the lab, on an asset node that holds at least one claim of it. */
export function checkFaucetAsset(
  faucetAsset: FaucetAssetSpec,
  assets: RawAsset[],
  nodes: Map<string, NodeSpec>,
): AssetProblem[] {
  const at = (key: keyof FaucetAssetSpec) => ['services', 'faucet', 'asset', key];
  const asset = assets.find((candidate) => candidate.ticker === faucetAsset.ticker);
  if (!asset)
    return [
      {
        path: at('ticker'),
        message: `no asset "${faucetAsset.ticker}" in this lab's assets (${assets.map((known) => known.ticker).join(', ') || 'none'})`,
      },
    ];
  if (asset.schema === 'uda')
    return [
      {
        path: at('ticker'),
        message: `${asset.ticker} is a uda asset, one unique token: the faucet gives a fungible asset (nia or cfa)`,
      },
    ];
  const nodeProblem = assetNodeProblem(faucetAsset.node, nodes);
  if (nodeProblem) return [{ path: at('node'), message: nodeProblem }];
  const held = heldAtBringUp(asset, faucetAsset.node);
  if (held === 0)
    return [
      {
        path: at('node'),
        message: `${faucetAsset.node} holds no ${asset.ticker} at bring-up: name its issuer (${asset.issuer}) or a node its distribute gives some to`,
      },
    ];
  if (faucetAsset.amount > held)
    return [
      {
        path: at('amount'),
        message: `${faucetAsset.node} holds ${held} ${asset.ticker} at bring-up, less than one claim of ${faucetAsset.amount}`,
      },
    ];
  return [];
}
