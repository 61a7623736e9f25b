// The methods of protocol 0.2 over the store: the payer posts a consignment under the payee's
// recipient id, the payee gets it and ACKs or NACKs it, the payer reads the ACK.
import type { MethodParams } from './params.js';
import { PROTOCOL_VERSION, RpcCode, RpcFailure } from './protocol.js';
import type { ProxyStore, StoredConsignment, WriteOutcome } from './store.js';

export const SERVER_VERSION = '0.1.0';

type Method = (params: MethodParams, file: Buffer | undefined) => Promise<unknown> | unknown;

/** true when the write stored something, false when exactly that was there already. */
function firstTime(outcome: WriteOutcome, refusal: RpcFailure): boolean {
  if (outcome === 'conflict') throw refusal;
  return outcome === 'stored';
}

function requireFile(file: Buffer | undefined): Buffer {
  if (!file) throw new RpcFailure(RpcCode.missingFileOrTxid, 'Missing file: attach it as the multipart field "file"');
  return file;
}

/** Answers one call by its method name; an unknown name is JSON-RPC's "method not found". */
export type CallMethod = (method: string, params: MethodParams, file: Buffer | undefined) => Promise<unknown>;

export function createMethods(store: ProxyStore, startedAt = Date.now()): CallMethod {
  const consignmentOf = (params: MethodParams): { recipientId: string; consignment: StoredConsignment } => {
    const recipientId = params.recipientId();
    const consignment = store.consignment(recipientId);
    if (!consignment)
      throw new RpcFailure(
        RpcCode.consignmentNotFound,
        `Consignment file not found: nothing was posted for recipient ID ${recipientId}`,
      );
    return { recipientId, consignment };
  };

  const methods: Record<string, Method> = {
    'server.info': () => ({
      protocol_version: PROTOCOL_VERSION,
      version: SERVER_VERSION,
      uptime: Math.floor((Date.now() - startedAt) / 1000),
    }),

    'consignment.get': async (params) => {
      const { consignment } = consignmentOf(params);
      const file = await store.readFile(consignment.fileDigest);
      return {
        consignment: file.toString('base64'),
        txid: consignment.txid,
        ...(consignment.vout === undefined ? {} : { vout: consignment.vout }),
      };
    },

    'consignment.post': async (params, file) => {
      const upload = requireFile(file);
      const recipientId = params.recipientId();
      const outcome = await store.putConsignment(recipientId, upload, params.txid(), params.vout());
      return firstTime(
        outcome,
        new RpcFailure(
          RpcCode.cannotChangeUploadedFile,
          `Cannot change uploaded file: another consignment is already stored for recipient ID ${recipientId}`,
        ),
      );
    },

    'media.get': async (params) => {
      const attachmentId = params.attachmentId();
      const digest = store.mediaDigest(attachmentId);
      if (!digest)
        throw new RpcFailure(
          RpcCode.mediaNotFound,
          `Media file not found: nothing was posted for attachment ID ${attachmentId}`,
        );
      return (await store.readFile(digest)).toString('base64');
    },

    'media.post': async (params, file) => {
      const attachmentId = params.attachmentId();
      const outcome = await store.putMedia(attachmentId, requireFile(file));
      return firstTime(
        outcome,
        new RpcFailure(
          RpcCode.cannotChangeUploadedFile,
          `Cannot change uploaded file: another file is already stored for attachment ID ${attachmentId}`,
        ),
      );
    },

    'ack.get': (params) => consignmentOf(params).consignment.ack,

    'ack.post': async (params) => {
      const { recipientId } = consignmentOf(params);
      const outcome = await store.setAck(recipientId, params.ack());
      return firstTime(
        outcome,
        new RpcFailure(
          RpcCode.cannotChangeAck,
          `Cannot change ACK: the recipient of ${recipientId} has already answered the other way`,
        ),
      );
    },
  };
  const names = Object.keys(methods).join(', ');
  return async (method, params, file) => {
    const run = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!run) throw new RpcFailure(RpcCode.methodNotFound, `Method not found: ${method}; the methods are ${names}`);
    return run(params, file);
  };
}
