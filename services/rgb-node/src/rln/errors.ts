// RGB Lightning Node's errors, which this API answers with: RLN's body `{error, code, name}` (code is
// the HTTP status, name RLN's error variant), its statuses and its texts (RLN's src/error.rs). They
// are reglab DomainErrors whose code is RLN's name; the kind gives the status as everywhere in reglab.
import { DomainError, type ErrorKind } from '../../../../lib/errors.js';
import { STATUS_OF_KIND } from '../../../../lib/http/errors.js';
import type { RgbLibError } from '../../../../lib/rgb/rgb-lib-error.js';

const rln = (kind: ErrorKind, name: string, message: string) => new DomainError(kind, name, message);

export const notInitialized = () =>
  rln('forbidden', 'NotInitialized', 'Wallet has not been initialized (hint: call init)');
export const alreadyInitialized = () => rln('forbidden', 'AlreadyInitialized', 'Node has already been initialized');
export const lockedNode = () => rln('forbidden', 'LockedNode', 'Node is locked (hint: call unlock)');
export const unlockedNode = () => rln('forbidden', 'UnlockedNode', 'Node is unlocked (hint: call lock)');
export const changingState = () =>
  rln('forbidden', 'ChangingState', 'Cannot call other APIs while node is changing state');
export const wrongPassword = () => rln('unauthorized', 'WrongPassword', 'The provided password is incorrect');
export const invalidPassword = (why: string) => rln('invalid', 'InvalidPassword', `Invalid password: ${why}`);
export const invalidRequest = (why: string) => rln('invalid', 'InvalidRequest', `Invalid request: ${why}`);
export const invalidAmount = (why: string) => rln('invalid', 'InvalidAmount', `Invalid amount: ${why}`);
export const invalidIndexer = (why: string) => rln('forbidden', 'InvalidIndexer', `Invalid indexer: ${why}`);
export const invalidTransportEndpoints = (why: string) =>
  rln('invalid', 'InvalidTransportEndpoints', `Invalid transport endpoints: ${why}`);
export const noValidTransportEndpoint = (why?: string) =>
  rln('unavailable', 'NoValidTransportEndpoint', `No valid transport endpoint found${why ? `: ${why}` : ''}`);
export const networkError = (why: string) => rln('unavailable', 'Network', `Network error: ${why}`);
export const noLightningSide = (path: string) =>
  rln(
    'invalid',
    'NoLightningSide',
    `${path}: this node has no Lightning side (an rgb node is an RGB wallet on rgb-lib; asset channels need RGB Lightning Node)`,
  );

/** rgb-lib's error as RLN answers it (RLN's From<RgbLibError>); undefined for what RLN calls unexpected. */
export function fromRgbLib(error: RgbLibError): DomainError | undefined {
  const details = error.field('details') ?? '';
  switch (error.variant) {
    case 'AllocationsAlreadyAvailable':
      return rln('forbidden', 'AllocationsAlreadyAvailable', 'Allocations already available');
    case 'AssetNotFound':
      return rln('forbidden', 'UnknownContractId', 'Unknown RGB contract ID');
    case 'BatchTransferNotFound':
      return rln('forbidden', 'BatchTransferNotFound', 'Batch transfer not found');
    case 'CannotEstimateFees':
      return rln('forbidden', 'CannotEstimateFees', 'Cannot estimate fees');
    case 'CannotFailBatchTransfer':
      return rln('forbidden', 'CannotFailBatchTransfer', 'Batch transfer cannot be set to failed status');
    case 'FailedBdkSync':
      return rln('forbidden', 'FailedBdkSync', `Failed to sync BDK: ${details}`);
    case 'FailedBroadcast':
      return rln('forbidden', 'FailedBroadcast', `Failed broadcast: ${details}`);
    case 'Indexer':
      return networkError(`indexer err: ${details}`);
    case 'InsufficientAllocationSlots':
      return rln('forbidden', 'NoAvailableUtxos', 'No uncolored UTXOs are available (hint: call createutxos)');
    case 'InsufficientBitcoins': {
      const missing = Number(error.field('needed') ?? 0) - Number(error.field('available') ?? 0);
      return rln('forbidden', 'InsufficientFunds', `Not enough funds, get an address and send ${missing} sats there`);
    }
    case 'InsufficientAssignments':
    case 'InsufficientSpendableAssets':
    case 'InsufficientTotalAssets':
      return rln('forbidden', 'InsufficientAssets', 'Not enough assets');
    case 'InvalidAddress':
      return rln('invalid', 'InvalidAddress', `Invalid address: ${details}`);
    case 'InvalidAmountZero':
      return invalidAmount('0');
    case 'InvalidAssetID':
      return rln('invalid', 'InvalidAssetID', `Invalid asset ID: ${error.field('asset_id') ?? ''}`);
    case 'InvalidElectrum':
    case 'InvalidIndexer':
      return invalidIndexer(details);
    case 'InvalidExpiration':
      return invalidRequest('the expiration timestamp must be in the future');
    case 'InvalidMnemonic':
      return rln('invalid', 'InvalidMnemonic', `Invalid mnemonic: ${details}`);
    case 'InvalidProxyProtocol':
      return rln(
        'forbidden',
        'InvalidProxyProtocol',
        `Invalid proxy protocol version: ${error.field('version') ?? ''}`,
      );
    case 'InvalidRecipientID':
      return rln('invalid', 'InvalidRecipientID', 'The provided recipient ID is neither a blinded UTXO or a script');
    case 'InvalidRecipientNetwork':
      return rln(
        'invalid',
        'InvalidRecipientNetwork',
        "The provided recipient ID is for a different network than the wallet's one",
      );
    case 'InvalidDetails':
    case 'InvalidFeeRate':
    case 'InvalidInvoice':
    case 'InvalidName':
    case 'InvalidPrecision':
    case 'InvalidTicker':
    case 'InvalidTransportEndpoints':
      // rgb-lib's words when every endpoint is well formed but none answered server.info as a proxy of
      // protocol 0.2: the proxy is down or out of reach, which is the lab's state, not the request's
      // (RLN answers it 400 as a bad request)
      if (details === 'no valid transport endpoints')
        return noValidTransportEndpoint(
          'no transport endpoint of the recipients answered as an RGB consignment proxy (protocol 0.2): the proxy is down or this node cannot reach it',
        );
      return invalidTransportEndpoints(details);
    case 'InvalidTransportEndpoint':
      return rln('invalid', error.variant, `${splitWords(error.variant)}: ${details}`);
    case 'MaxFeeExceeded':
    case 'MinFeeNotMet':
      return rln(
        'forbidden',
        error.variant,
        `${error.variant === 'MaxFeeExceeded' ? 'Max fee exceeded' : 'Min fee not met'} for transfer with TXID: ${error.field('txid') ?? ''}`,
      );
    case 'Network':
      return networkError(details);
    case 'NoIssuanceAmounts':
      return invalidAmount('issuance request with no provided amounts');
    case 'TooHighIssuanceAmounts':
      return invalidAmount('trying to issue too many assets');
    case 'NoValidTransportEndpoint':
      return noValidTransportEndpoint();
    case 'OutputBelowDustLimit':
      return rln('invalid', 'OutputBelowDustLimit', 'Output below the dust limit');
    case 'Proxy':
      return networkError(`proxy err: ${details}`);
    case 'RecipientIDAlreadyUsed':
      return rln('forbidden', 'RecipientIDAlreadyUsed', 'Recipient ID already used');
    case 'SyncNeeded':
      return rln('forbidden', 'SyncNeeded', 'Sync needed');
    case 'UnsupportedTransportType':
      return rln('forbidden', 'UnsupportedTransportType', 'Transport type is not supported');
    default:
      return undefined;
  }
}

/** 'InvalidTicker' -> 'Invalid ticker', as RLN words its messages. */
const splitWords = (name: string) =>
  name.replace(/(?<=[a-z])(?=[A-Z])/g, ' ').replace(/ (\w)/g, (_whole, letter: string) => ` ${letter.toLowerCase()}`);

export interface RlnErrorBody {
  error: string;
  code: number;
  name: string;
}

export function rlnAnswer(error: DomainError): { status: number; body: RlnErrorBody } {
  const status = STATUS_OF_KIND[error.kind];
  return { status, body: { error: error.message.replace(/\n/g, ' '), code: status, name: error.code } };
}

export const rlnErrorSchema = {
  type: 'object',
  required: ['error', 'code', 'name'],
  properties: { error: { type: 'string' }, code: { type: 'integer' }, name: { type: 'string' } },
} as const;
