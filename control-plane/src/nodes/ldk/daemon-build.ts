import type { OnDemandBuild } from '../binary-build.js';

/** reglab-ldk, built by cargo from nodes/ldk the first time a lab runs an ldk node (or by `setup.sh --all`). */
export const LDK_DAEMON_BUILD: OnDemandBuild = {
  binary: 'reglab-ldk',
  what: "the LDK node daemon this lab's ldk nodes run",
  script: 'scripts/build-ldk.sh',
  // nodes/ldk/README.md: a clean release build costs about 10 min of CPU
  usually: 'about 6 minutes on two idle cores, longer on a busy machine',
};
