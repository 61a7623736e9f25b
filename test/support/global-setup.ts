// Fails the run early, with the fix, when a real part every integration test needs is missing.
// (Node binaries are checked where a test starts a node, with the same kind of message.)
import { postgresBinDir } from '../../control-plane/src/nodes/postgres/server.js';
import { redisServerBinary } from '../../control-plane/src/nodes/redis/server.js';

export default function setup(): void {
  postgresBinDir();
  redisServerBinary();
}
