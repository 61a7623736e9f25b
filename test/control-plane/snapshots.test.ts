// Snapshots on the process runtime (test/control-plane/snapshot-suite.ts).
// Its own labs: a reset and an up from a snapshot replace the lab.
import { describeSnapshots } from './snapshot-suite.js';

describeSnapshots('process');
