// Every step kind a scenario file can use. A new part of the lab brings its steps as a module of
// its own listed here: the validator, the runner and the docs take them from this list.
import { activitySteps } from './activity.js';
import { assetSteps } from './assets.js';
import { chainSteps } from './chain.js';
import { chainDataSteps } from './chain-data.js';
import { faucetSteps } from './faucet.js';
import { feeSteps } from './fees.js';
import { faultSteps } from './faults.js';
import type { AnyStepKind } from './kind.js';
import { lightningSteps } from './lightning.js';
import { lnurlSteps } from './lnurl.js';
import { networkSteps } from './network.js';
import { walletServerSteps } from './wallet-server.js';

export const STEP_KINDS: readonly AnyStepKind[] = [
  ...chainSteps,
  ...lightningSteps,
  ...faultSteps,
  ...networkSteps,
  ...walletServerSteps,
  ...lnurlSteps,
  ...faucetSteps,
  ...chainDataSteps,
  ...assetSteps,
  ...activitySteps,
  ...feeSteps,
];
