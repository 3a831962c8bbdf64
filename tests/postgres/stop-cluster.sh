#!/usr/bin/env bash
# Stops a cluster tests/postgres/start-cluster.sh started in DIR and removes DIR.
set -uo pipefail
dir=${1:?usage: stop-cluster.sh DIR}
bindir=""
for candidate in "${PG_BINDIR:-}" /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
  if [[ -n "$candidate" && -x "$candidate/pg_ctl" ]]; then bindir=$candidate; break; fi
done
run_as=()
[[ $(id -u) -eq 0 ]] && run_as=(runuser -u postgres --)
if [[ -n "$bindir" && -f "$dir/data/PG_VERSION" ]]; then
  "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
fi
rm -rf "$dir"
