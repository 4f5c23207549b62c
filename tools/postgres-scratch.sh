#!/usr/bin/env bash
# A throw-away PostgreSQL 15 cluster for the store tests and the reference SQL race test.
#
#   eval "$(bash tools/postgres-scratch.sh start)"   # prints the exports below; the server runs
#   bash tools/postgres-scratch.sh stop              # stops it and deletes its folder
#
# start: initdb into a fresh temporary folder (as the postgres user when run as root, since initdb
# refuses root; as yourself otherwise), listen on 127.0.0.1 only, on a free port, plus a unix
# socket inside that folder. Prints, one a line:
#   export FENCESIM_POSTGRES='host=127.0.0.1 port=PORT user=fencesim dbname=postgres'
#   export FENCESIM_POSTGRES_DIR=FOLDER
# stop [FOLDER]: fast shutdown and removal; FOLDER defaults to $FENCESIM_POSTGRES_DIR. Stopping a
# folder that is already gone is not an error (a trap may run twice).
set -euo pipefail

bin=/usr/lib/postgresql/15/bin

usage() {
  echo "usage: postgres-scratch.sh start | stop [FOLDER]" >&2
  exit 2
}

# Runs a server binary as the folder's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
  if [ ! -x "$bin/initdb" ]; then
    echo "postgres-scratch: $bin/initdb not found; install postgresql-15 (tools/install-deps.sh)" >&2
    exit 2
  fi
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/fencesim-postgres.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U fencesim -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
    echo "postgres-scratch: initdb failed, see $dir/initdb.log" >&2
    exit 1
  }
  # A free port: the kernel gives none to shell scripts, so try a few at random; a port taken
  # between the check and the start makes pg_ctl fail, and the next try takes another.
  local attempt port
  for attempt in 1 2 3 4 5 6 7 8; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if port_in_use "$port"; then continue; fi
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 \
      -o "-k $dir -c listen_addresses=127.0.0.1 -p $port -c fsync=off" start >/dev/null 2>&1; then
      echo "export FENCESIM_POSTGRES='host=127.0.0.1 port=$port user=fencesim dbname=postgres'"
      echo "export FENCESIM_POSTGRES_DIR=$dir"
      return 0
    fi
  done
  echo "postgres-scratch: the server did not start after $attempt tries, see $dir/log" >&2
  exit 1
}

stop() {
  local dir=${1:-${FENCESIM_POSTGRES_DIR:-}}
  if [ -z "$dir" ]; then usage; fi
  case "$dir" in
    */fencesim-postgres.*) ;;
    *)
      echo "postgres-scratch: $dir is not a folder this script made" >&2
      exit 2
      ;;
  esac
  if [ -d "$dir/data" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) usage ;;
esac
