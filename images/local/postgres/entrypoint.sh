#!/bin/sh
# Usage: reglab-postgres -D <data folder> [postgres arguments...]
# Creates the cluster when the folder has none, open to the lab network, then execs postgres.
set -eu
data=
prev=
for arg in "$@"; do
  [ "$prev" = "-D" ] && data=$arg
  prev=$arg
done
if [ -z "$data" ]; then
  data=/data/pgdata
  set -- -D "$data" "$@"
fi
if [ ! -f "$data/PG_VERSION" ]; then
  mkdir -p "$data"
  chmod 700 "$data"
  # 1 MiB WAL segments instead of 16: a lab writes little, and its volume (copied into every
  # snapshot, and back at each restore) stays small
  initdb -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-sync --wal-segsize=1 >/dev/null
  echo "host all all 0.0.0.0/0 trust" >> "$data/pg_hba.conf"
  # no fsync, but synchronous_commit on: an answered commit has reached the kernel, so a killed
  # container keeps it (control-plane/src/nodes/postgres/server.ts)
  printf "listen_addresses = '*'\nfsync = off\nfull_page_writes = off\nmax_connections = 200\nshared_buffers = 16MB\nmin_wal_size = 2MB\n" \
    > "$data/postgresql.auto.conf"
fi
exec postgres "$@"
