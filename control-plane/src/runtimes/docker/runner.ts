// Every container of a lab runs its service under a small shell loop (after the engine's init), so
// that a reset can end the service and start it again inside the same container: the engine then
// neither tears down nor sets up the container, its network and its published ports, which on
// Podman costs a few tenths of a second per container, one container after another.
//
// The loop runs the service as its child and, like a plain container, ends with it: the exit
// status is the service's, a stop signal is passed on to it. Two signals are its own:
// - SIGUSR1 (hold): it ends the service with the discard signal it was started with, writes
//   HELD_MARKER into the data folder once the service has ended, and waits;
// - SIGUSR2 (resume): it removes the marker and starts the service again.
import { CONTAINER_DATA_DIR } from './placement.js';

export const HOLD_SIGNAL = 'SIGUSR1';
export const RESUME_SIGNAL = 'SIGUSR2';
/** Written in the service's data folder (/data) once a held service has ended. */
export const HELD_MARKER = '.reglab-held';
/** The environment variable that holds the loop: `ps` in the container shows the service's command, not the script. */
const RUNNER_VARIABLE = 'REGLAB_RUNNER';

// POSIX sh (dash). `wait` returns early when a trapped signal arrives, with 128 + the signal's
// number: the inner loop waits again until the child has really ended. When the shell reaped the
// child meanwhile, its status is kept for one more `wait` (127 when the last wait already had it).
// The sleep is ended with SIGKILL: another signal can reach it between its fork and its exec, where
// dash still runs the runner's traps, and be lost. A signal that comes before the child (or the
// sleep that waits for resume) exists is applied as soon as it does.
const RUNNER_SCRIPT = `
discard=$1; shift
marker=${CONTAINER_DATA_DIR}/${HELD_MARKER}
hold=0 stopping=0 child= sleeper= status=0
trap 'hold=1; [ -n "$child" ] && kill -s "$discard" "$child" 2>/dev/null' USR1
trap 'hold=0; [ -n "$sleeper" ] && kill -s KILL "$sleeper" 2>/dev/null' USR2
for signal in TERM INT QUIT HUP; do
  trap "stopping=1; [ -n \\"\\$child\\" ] && kill -s $signal \\"\\$child\\" 2>/dev/null; [ -n \\"\\$sleeper\\" ] && kill -s KILL \\"\\$sleeper\\" 2>/dev/null" "$signal"
done
while :; do
  while [ "$hold" = 1 ] && [ "$stopping" = 0 ]; do
    sleep 86400 & sleeper=$!
    [ "$hold" = 1 ] && [ "$stopping" = 0 ] && wait "$sleeper"
    kill -s KILL "$sleeper" 2>/dev/null; sleeper=
  done
  [ "$stopping" = 1 ] && exit "$status"
  rm -f "$marker"
  "$@" &
  child=$!
  [ "$hold" = 1 ] && kill -s "$discard" "$child" 2>/dev/null
  while :; do
    wait "$child"; status=$?
    kill -0 "$child" 2>/dev/null || break
  done
  wait "$child" 2>/dev/null; last=$?
  [ "$last" = 127 ] || status=$last
  child=
  if [ "$hold" = 0 ] || [ "$stopping" = 1 ]; then exit "$status"; fi
  echo "reglab: the service ended (status $status) for a reset of its lab; it starts again once its data is back" >&2
  : > "$marker"
done
`;

/** The container's entry point and environment for `program` (the image's entry point and the service's arguments). */
export function runnerEntrypoint(
  program: string[],
  discardSignal: NodeJS.Signals,
): { Entrypoint: string[]; env: string } {
  return {
    Entrypoint: [
      '/bin/sh',
      '-c',
      `eval "$${RUNNER_VARIABLE}"`,
      'reglab-runner',
      discardSignal.replace(/^SIG/, ''),
      ...program,
    ],
    env: `${RUNNER_VARIABLE}=${RUNNER_SCRIPT}`,
  };
}

/** Whether a container (its Config.Env) runs under the loop: containers made by an older reglab do not. */
export const runsUnderRunner = (env: string[] | undefined) =>
  (env ?? []).some((entry) => entry.startsWith(`${RUNNER_VARIABLE}=`));
