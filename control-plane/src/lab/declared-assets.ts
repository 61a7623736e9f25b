// lab.yaml's assets at bring-up: each is issued on its issuer, then handed out in one transfer (an
// invoice from each holder, one send paying them all, one block), settled on every side.
import { settleAssetTransfer, withFreeUtxos } from './asset-transfer.js';
import { issueAsset } from './assets.js';
import type { LabSession } from './session.js';

export async function issueDeclaredAssets(session: LabSession): Promise<void> {
  for (const asset of session.lab.spec.assets) {
    const { assetId } = await issueAsset(session, {
      node: asset.issuer,
      ticker: asset.ticker,
      amount: asset.supply,
      name: asset.name,
      precision: asset.precision,
      schema: asset.schema,
    });
    const holders = Object.entries(asset.distribute);
    if (holders.length === 0) continue;
    const invoices = await Promise.all(
      holders.map(([holder]) => withFreeUtxos(session, holder, (node) => node.assetInvoice(false))),
    );
    const payments = holders.map(([, amount], index) => ({ invoice: invoices[index].invoice, amount }));
    const txid = await session.assets(asset.issuer).sendAsset({ assetId, schema: asset.schema }, payments);
    await settleAssetTransfer(session, {
      assetId,
      txid,
      sender: asset.issuer,
      receivers: holders.map(([holder]) => holder),
    });
  }
}
