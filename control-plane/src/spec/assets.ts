// lab.yaml's assets: RGB assets issued on a node at bring-up and handed out to other nodes. The
// shapes rgb-lib accepts (ticker, name, precision) are also what `reglab asset issue` is checked
// against. Amounts are in the asset's smallest unit, whole numbers a JSON number carries exactly.
import { nodeKindsWhere } from '../nodes/registry.js';
import type { ErrorObject } from 'ajv';
import type { AssetSpec, NodeSpec } from './types.js';

const TICKER_RULE = '1-8 upper-case letters and digits, starting with a letter (e.g. USDT)';
const NAME_RULE = '1-40 printable ASCII characters';
export const assetTicker = {
  type: 'string',
  pattern: '^[A-Z][A-Z0-9]{0,7}$',
  description: `the lab's name of the asset: ${TICKER_RULE}; NIA and UDA carry it on-chain, a CFA has none and the lab keeps it as its label`,
} as const;
export const assetName = { type: 'string', pattern: '^[ -~]{1,40}$', description: NAME_RULE } as const;
export const assetPrecision = {
  type: 'integer',
  minimum: 0,
  maximum: 18,
  description: 'decimal places a wallet shows',
} as const;
export const assetSchemaName = {
  enum: ['nia', 'cfa', 'uda'],
  description: 'nia: fungible with a ticker; cfa: fungible, no ticker on-chain; uda: one unique token',
} as const;
export const assetAmount = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

export const assetsSchema = {
  type: 'array',
  default: [],
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['ticker', 'supply', 'issuer'],
    properties: {
      ticker: assetTicker,
      name: assetName,
      schema: { ...assetSchemaName, default: 'nia' },
      precision: { ...assetPrecision, default: 0 },
      supply: assetAmount,
      issuer: { type: 'string' },
      distribute: {
        type: 'object',
        default: {},
        additionalProperties: assetAmount,
        description: 'node name -> amount sent to it from the issuer at bring-up',
      },
    },
  },
} as const;

/** The words of the rules a pattern stands for (rgb-lib's rules for tickers and names). */
export function describeAssetError(error: ErrorObject, path: (string | number)[]): string | undefined {
  if (error.keyword !== 'pattern') return undefined;
  if (path.at(-1) === 'ticker') return `must be ${TICKER_RULE}`;
  if (path.at(-1) === 'name') return `must be ${NAME_RULE}`;
  return undefined;
}

/** The node kinds that hold RGB assets. */
export const ASSET_NODE_KINDS: readonly string[] = nodeKindsWhere((kind) => kind.holdsAssets === true).sort();

/** Why `supply` cannot be issued in `schema`, if it cannot: a UDA is one token. */
export const supplyProblem = (schema: AssetSpec['schema'], supply: number): string | undefined =>
  schema === 'uda' && supply !== 1 ? 'a uda asset is one unique token: its supply is 1' : undefined;

/** An asset as lab.yaml has it, before its name defaults to its ticker. */
export type RawAsset = Omit<AssetSpec, 'name'> & { name?: string };

export interface AssetProblem {
  path: (string | number)[];
  message: string;
}

/** Why node `name` cannot hold assets, if it cannot: it must exist, be an rgb or rln node, and have bitcoin. */
export function assetNodeProblem(name: string, nodes: Map<string, NodeSpec>): string | undefined {
  const node = nodes.get(name);
  if (!node) return `no node named "${name}" (nodes: ${[...nodes.keys()].join(', ') || 'none'})`;
  if (!ASSET_NODE_KINDS.includes(node.kind))
    return `"${name}" is an ${node.kind} node: RGB assets are held by ${ASSET_NODE_KINDS.join(' or ')} nodes`;
  return node.funding_sat > 0
    ? undefined
    : `${name} has funding_sat 0: a node holding assets needs bitcoin for its colored UTXOs`;
}

/**
 * What the schema cannot say of assets: unique tickers, issuers and holders that are asset nodes, amounts within the
 * supply.
 */
export function checkAssets(assets: RawAsset[], nodes: Map<string, NodeSpec>): AssetProblem[] {
  const problems: AssetProblem[] = [];
  const assetNode = (name: string) => assetNodeProblem(name, nodes);
  const tickers = new Set<string>();
  assets.forEach((asset, index) => {
    if (tickers.has(asset.ticker))
      problems.push({ path: ['assets', index, 'ticker'], message: `duplicate asset ticker "${asset.ticker}"` });
    tickers.add(asset.ticker);
    const supply = supplyProblem(asset.schema, asset.supply);
    if (supply) problems.push({ path: ['assets', index, 'supply'], message: supply });
    const issuer = assetNode(asset.issuer);
    if (issuer) problems.push({ path: ['assets', index, 'issuer'], message: issuer });
    for (const holder of Object.keys(asset.distribute)) {
      const path = ['assets', index, 'distribute', holder];
      const problem =
        holder === asset.issuer
          ? `the issuer holds what it does not distribute: ${holder} cannot receive from itself`
          : assetNode(holder);
      if (problem) problems.push({ path, message: problem });
    }
    const distributed = Object.values(asset.distribute).reduce((sum, amount) => sum + amount, 0);
    if (distributed > asset.supply)
      problems.push({
        path: ['assets', index, 'distribute'],
        message: `distributes ${distributed}, more than the supply of ${asset.supply}`,
      });
  });
  return problems;
}
