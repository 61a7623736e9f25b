// Issuing and holding assets: /issueassetnia, /issueassetcfa, /issueassetuda, /listassets,
// /assetbalance.
import type { FastifyInstance } from 'fastify';
import type { AssetSchema } from '../../../../lib/rgb/types.js';
import { toRlnBalance, toRlnCfa, toRlnNia, toRlnUda } from '../rln/convert.js';
import { invalidAmount, invalidRequest } from '../rln/errors.js';
import { rlnSchema } from '../rln/http.js';
import { checkPositive } from '../rln/request-checks.js';
import {
  assetBalanceResponse,
  assetIdBody,
  cfaSchema,
  issueCfaBody,
  issueNiaBody,
  issueUdaBody,
  listAssetsBody,
  listAssetsResponse,
  niaSchema,
  udaSchema,
} from '../rln/schemas.js';
import type { RgbNode } from '../node/rgb-node.js';

type Schema = AssetSchema | 'Ifa';

const assetResponse = (asset: object) => ({ type: 'object', required: ['asset'], properties: { asset } });

/** The amounts of one issuance, whose total must stay a number JSON carries exactly. */
function checkedAmounts(amounts: number[]): number[] {
  if (amounts.length === 0) throw invalidAmount('issuance request with no provided amounts: give one or more');
  for (const amount of amounts) checkPositive(amount, 'each of amounts');
  if (amounts.reduce((sum, value) => sum + value, 0) > Number.MAX_SAFE_INTEGER)
    throw invalidAmount(`the amounts add up to more than ${Number.MAX_SAFE_INTEGER}`);
  return amounts;
}

/** RLN takes media by the digest of an earlier /postassetmedia upload, which this node does not keep. */
function refuseMedia(field: string, digests: (string | null | undefined)[]): void {
  if (digests.some((digest) => digest))
    throw invalidRequest(
      `${field}: this node keeps no uploaded media (it has no /postassetmedia); issue without media`,
    );
}

export function assetRoutes(api: FastifyInstance, node: RgbNode): void {
  api.post<{ Body: { amounts: number[]; ticker: string; name: string; precision: number } }>(
    '/issueassetnia',
    {
      schema: rlnSchema({
        tag: 'assets',
        method: 'POST',
        summary: 'Issue a NIA (fungible, with a ticker) asset; each amount lands on its own colored UTXO',
        body: issueNiaBody,
        ok: assetResponse(niaSchema),
      }),
    },
    async (request) => {
      const { amounts, ticker, name, precision } = request.body;
      return {
        asset: toRlnNia(
          await node.unlocked().wallet.issueNia({ ticker, name, precision, amounts: checkedAmounts(amounts) }),
        ),
      };
    },
  );

  api.post<{
    Body: { amounts: number[]; name: string; details?: string | null; precision: number; file_digest?: string | null };
  }>(
    '/issueassetcfa',
    {
      schema: rlnSchema({
        tag: 'assets',
        method: 'POST',
        summary: 'Issue a CFA (fungible, no ticker) asset, without media',
        body: issueCfaBody,
        ok: assetResponse(cfaSchema),
      }),
    },
    async (request) => {
      const { amounts, name, details, precision, file_digest } = request.body;
      refuseMedia('file_digest', [file_digest]);
      return {
        asset: toRlnCfa(
          await node
            .unlocked()
            .wallet.issueCfa({ name, details: details ?? undefined, precision, amounts: checkedAmounts(amounts) }),
        ),
      };
    },
  );

  api.post<{
    Body: {
      ticker: string;
      name: string;
      details?: string | null;
      precision: number;
      media_file_digest?: string | null;
      attachments_file_digests: string[];
    };
  }>(
    '/issueassetuda',
    {
      schema: rlnSchema({
        tag: 'assets',
        method: 'POST',
        summary: 'Issue a UDA (one unique token) asset, without media or attachments',
        body: issueUdaBody,
        ok: assetResponse(udaSchema),
      }),
    },
    async (request) => {
      const { ticker, name, details, precision, media_file_digest, attachments_file_digests } = request.body;
      refuseMedia('media_file_digest and attachments_file_digests', [media_file_digest, ...attachments_file_digests]);
      return {
        asset: toRlnUda(
          await node.unlocked().wallet.issueUda({ ticker, name, details: details ?? undefined, precision }),
        ),
      };
    },
  );

  api.post<{ Body: { filter_asset_schemas: Schema[] } }>(
    '/listassets',
    {
      schema: rlnSchema({
        tag: 'assets',
        method: 'POST',
        summary:
          'The assets the wallet knows, by schema (an empty filter lists all); IFA is never held here, its list is empty',
        body: listAssetsBody,
        ok: listAssetsResponse,
      }),
    },
    async (request) => {
      const { wallet } = node.unlocked();
      const wanted = request.body.filter_asset_schemas;
      const all = wanted.length === 0;
      const libSchemas = wanted.filter((schema): schema is AssetSchema => schema !== 'Ifa');
      // rgb-lib lists every schema for an empty filter, so a filter naming only IFA is answered here
      const assets =
        !all && libSchemas.length === 0 ? { nia: null, cfa: null, uda: null } : await wallet.listAssets(libSchemas);
      return {
        nia: assets.nia?.map(toRlnNia) ?? null,
        uda: assets.uda?.map(toRlnUda) ?? null,
        cfa: assets.cfa?.map(toRlnCfa) ?? null,
        ifa: all || wanted.includes('Ifa') ? [] : null,
      };
    },
  );

  api.post<{ Body: { asset_id: string } }>(
    '/assetbalance',
    {
      schema: rlnSchema({
        tag: 'assets',
        method: 'POST',
        summary: "An asset's balance (no off-chain part: this node has no channels)",
        body: assetIdBody,
        ok: assetBalanceResponse,
      }),
    },
    async (request) => toRlnBalance(await node.unlocked().wallet.assetBalance(request.body.asset_id)),
  );
}
