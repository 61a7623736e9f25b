#!/bin/sh
# Keeps a control plane running: the CLI starts it through this script (a shell holds far less
# memory than a Node.js parent would: see bench:memory). Its labs outlive it, but without it nothing
# restarts their services, and the faucet mines through its URL.
#   keeper.sh NODE ARGS...   (REGLAB_HOME set)
# - It exits with the control plane when that ends by its own stop (exit code 0: `reglab down`,
#   POST /shutdown, SIGTERM).
# - A control plane that ends otherwise (a crash, kill -9) after it started listening (its pid in
#   $REGLAB_HOME/daemon.json) is started again a second later. The new one takes the labs back
#   on the same port, told by REGLAB_CONTROL_PLANE_ENDED how the last one ended.
# - One that ends before it listens is not: whoever started it reports that.
# Its pid in $REGLAB_HOME/keeper.pid tells the CLI to wait for the control plane it starts again
# rather than start another.
echo $$ > "$REGLAB_HOME/keeper.pid"
trap 'rm -f "$REGLAB_HOME/keeper.pid"' EXIT
restarts=0
while :; do
  "$@" &
  child=$!
  wait "$child"
  code=$?
  [ "$code" -eq 0 ] && exit 0
  grep -q "\"pid\": $child," "$REGLAB_HOME/daemon.json" 2>/dev/null || exit "$code"
  if [ "$code" -gt 128 ]; then how="killed by signal $((code - 128))"; else how="exit code $code"; fi
  restarts=$((restarts + 1))
  export REGLAB_CONTROL_PLANE_ENDED="$how at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  export REGLAB_CONTROL_PLANE_RESTARTS="$restarts"
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) reglab keeper: the control plane (pid $child) ended: $how; starting it again" >&2
  sleep 1
done
