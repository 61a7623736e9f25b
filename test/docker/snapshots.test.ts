// Snapshots on the docker runtime (test/control-plane/snapshot-suite.ts), in the container engine's
// lane. Its own labs: a reset and an up from a snapshot replace the lab, which runs in containers.
import { describeSnapshots } from '../control-plane/snapshot-suite.js';

describeSnapshots('docker');
