// Real RGB in the lab: rgb-lib wallets made by the test, funded from the lab wallet, moving an NIA
// asset through the lab's own consignment proxy, over the lab's Electrum indexer and over its chain
// adapter as an Esplora indexer.
// Its own lab of btcd, the indexer and the chain adapter: the proxy and the wallets run in the
// test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RgbWallet } from '../../lib/rgb/wallet.js';
import { refreshUntil, startRgbLab, type RgbLab } from './support.js';

describe("real RGB transfers through the lab's indexer and proxy", () => {
  let lab: RgbLab;

  beforeAll(async () => {
    lab = await startRgbLab();
  });

  afterAll(async () => {
    await lab?.stop();
  });

  const preparedPair = async (indexerUrl: string): Promise<[RgbWallet, RgbWallet]> => {
    const issuer = await lab.openWallet(indexerUrl);
    const receiver = await lab.openWallet(indexerUrl);
    await lab.prepareWallet(issuer);
    await lab.prepareWallet(receiver);
    return [issuer, receiver];
  };

  for (const indexer of ['Electrum indexer', 'chain adapter as Esplora'] as const) {
    it(`moves an NIA asset to a blinded and a witness invoice, balances exact on both sides (${indexer})`, async () => {
      const [issuer, receiver] = await preparedPair(indexer === 'Electrum indexer' ? lab.electrumUrl : lab.esploraUrl);
      const asset = await issuer.issueNia({ ticker: 'LAB', name: 'Lab coin', precision: 0, amounts: [1000] });
      const endpoints = [lab.proxyEndpoint];
      // open invoices: a wallet can bind an invoice only to an asset it already knows
      const blind = await receiver.blindReceive({ assignment: { Fungible: 100 }, transportEndpoints: endpoints });
      const witness = await receiver.witnessReceive({ assignment: { Fungible: 50 }, transportEndpoints: endpoints });
      expect(blind.invoice).toContain(lab.proxyEndpoint);

      const sent = await issuer.send({
        recipientMap: {
          [asset.assetId]: [
            {
              recipientId: blind.recipientId,
              witnessData: null,
              assignment: { Fungible: 100 },
              transportEndpoints: endpoints,
            },
            {
              recipientId: witness.recipientId,
              witnessData: { amountSat: 1000, blinding: null },
              assignment: { Fungible: 50 },
              transportEndpoints: endpoints,
            },
          ],
        },
      });
      // the consignments wait in the lab's proxy under the invoices' recipient ids
      expect(lab.proxyStore.consignment(blind.recipientId)).toMatchObject({ txid: sent.txid, ack: null });
      expect(lab.proxyStore.consignment(witness.recipientId)).toMatchObject({
        txid: sent.txid,
        vout: expect.any(Number),
        ack: null,
      });

      // the receiver validates and ACKs them; the issuer reads the ACKs and broadcasts
      await refreshUntil('WaitingConfirmations', [
        { wallet: receiver, batchTransferIdx: blind.batchTransferIdx, assetId: asset.assetId },
        { wallet: receiver, batchTransferIdx: witness.batchTransferIdx, assetId: asset.assetId },
        { wallet: issuer, batchTransferIdx: sent.batchTransferIdx, assetId: asset.assetId },
      ]);
      expect(lab.proxyStore.consignment(blind.recipientId)?.ack).toBe(true);
      expect(lab.proxyStore.consignment(witness.recipientId)?.ack).toBe(true);
      expect(await lab.regtest.chain.getRawMempool()).toContain(sent.txid);

      await lab.mine(1);
      await refreshUntil('Settled', [
        { wallet: receiver, batchTransferIdx: blind.batchTransferIdx, assetId: asset.assetId },
        { wallet: receiver, batchTransferIdx: witness.batchTransferIdx, assetId: asset.assetId },
        { wallet: issuer, batchTransferIdx: sent.batchTransferIdx, assetId: asset.assetId },
      ]);
      expect(await issuer.assetBalance(asset.assetId)).toEqual({ settled: 850, future: 850, spendable: 850 });
      expect(await receiver.assetBalance(asset.assetId)).toEqual({ settled: 150, future: 150, spendable: 150 });
      const received = (await receiver.listTransfers(asset.assetId)).map((transfer) => [
        transfer.kind,
        transfer.assignments,
        transfer.txid,
      ]);
      expect(received).toEqual(
        expect.arrayContaining([
          ['ReceiveBlind', [{ Fungible: 100 }], sent.txid],
          ['ReceiveWitness', [{ Fungible: 50 }], sent.txid],
        ]),
      );
    });
  }

  it('fails a NACKed transfer cleanly on both sides: nothing broadcast, no balance moved', async () => {
    const [issuer, receiver] = await preparedPair(lab.electrumUrl);
    const endpoints = [lab.proxyEndpoint];
    const wanted = await issuer.issueNia({ ticker: 'WANT', name: 'Wanted coin', precision: 0, amounts: [1000] });
    const other = await issuer.issueNia({ ticker: 'OTHER', name: 'Other coin', precision: 0, amounts: [500] });
    const send = (assetId: string, recipientId: string, amount: number) =>
      issuer.send({
        recipientMap: {
          [assetId]: [
            { recipientId, witnessData: null, assignment: { Fungible: amount }, transportEndpoints: endpoints },
          ],
        },
      });
    // the receiver gets to know the wanted asset, so that it can ask for it by id
    const first = await receiver.blindReceive({ assignment: { Fungible: 100 }, transportEndpoints: endpoints });
    const firstSent = await send(wanted.assetId, first.recipientId, 100);
    const firstParties = [
      { wallet: receiver, batchTransferIdx: first.batchTransferIdx, assetId: wanted.assetId },
      { wallet: issuer, batchTransferIdx: firstSent.batchTransferIdx, assetId: wanted.assetId },
    ];
    await refreshUntil('WaitingConfirmations', firstParties);
    await lab.mine(1);
    await refreshUntil('Settled', firstParties);

    // an invoice for the wanted asset, paid with the other one: the receiver refuses it
    const invoice = await receiver.blindReceive({
      assetId: wanted.assetId,
      assignment: { Fungible: 10 },
      transportEndpoints: endpoints,
    });
    const sent = await send(other.assetId, invoice.recipientId, 10);
    expect(await issuer.assetBalance(other.assetId)).toMatchObject({ settled: 500, spendable: 0 });
    await refreshUntil('Failed', [
      { wallet: receiver, batchTransferIdx: invoice.batchTransferIdx, assetId: wanted.assetId },
      { wallet: issuer, batchTransferIdx: sent.batchTransferIdx, assetId: other.assetId },
    ]);
    expect(lab.proxyStore.consignment(invoice.recipientId)).toMatchObject({ txid: sent.txid, ack: false });
    await expect(lab.regtest.chain.getRawTransactionHex(sent.txid)).rejects.toThrow();
    expect(await issuer.assetBalance(other.assetId)).toEqual({ settled: 500, future: 500, spendable: 500 });
    expect(await issuer.assetBalance(wanted.assetId)).toEqual({ settled: 900, future: 900, spendable: 900 });
    expect(await receiver.assetBalance(wanted.assetId)).toEqual({ settled: 100, future: 100, spendable: 100 });
    expect(JSON.stringify(await receiver.listAssets())).not.toContain(other.assetId);
  });
});
