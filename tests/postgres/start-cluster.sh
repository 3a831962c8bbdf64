#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the ledger store's tests and prints the
# connection URI the tests read from GROUNDPLANE_POSTGRES_URI:
#
#   export GROUNDPLANE_POSTGRES_URI=$(tests/postgres/start-cluster.sh /tmp/gp-pg)
#   ...run the tests...
#   tests/postgres/stop-cluster.sh /tmp/gp-pg
#
# The cluster listens only on a unix socket inside DIR (no TCP port to collide with).
# As root (initdb refuses root) the cluster is created and run as the `postgres` user,
# so DIR must be a path that user can reach (under /tmp, say).
# Exits non-zero, with the reason on stderr, when no server can be started.
set -euo pipefail

dir=${1:?usage: start-cluster.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

bindir=""
for candidate in "${PG_BINDIR:-}" /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
  if [[ -n "$candidate" && -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
    bindir=$candidate
    break
  fi
done
if [[ -z "$bindir" ]]; then
  echo "start-cluster.sh: no initdb/pg_ctl found (Debian: apt-get install postgresql)" >&2
  exit 1
fi

run_as=()
if [[ $(id -u) -eq 0 ]]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "start-cluster.sh: running as root and there is no postgres user to run the server as" >&2
    exit 1
  fi
  chown postgres "$dir"
  run_as=(runuser -u postgres --)
fi

if [[ ! -f "$dir/data/PG_VERSION" ]]; then
  "${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
fi
# listen_addresses='': unix socket only, in DIR. fsync stays on: the tests and the bench
# measure a store whose commits reach the disk.
"${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=200" start >/dev/null ||
  { cat "$dir/server.log" >&2; exit 1; }

echo "postgresql://postgres@/postgres?host=$dir"
