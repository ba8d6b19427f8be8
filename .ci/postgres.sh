#!/usr/bin/env bash
# CI: install PostgreSQL (Debian package), start its cluster, make a role that may create databases, and print
# the URL the tests use (tests/conftest.py: TEST_POSTGRES_URL; each test module makes its own database there).
# Idempotent: a second run finds the package, the running cluster and the role, and prints the same URL.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
ROLE=crashdoc PASSWORD=crashdoc-ci

if ! command -v pg_lsclusters >/dev/null 2>&1; then
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >/dev/null
fi
# The package makes one cluster (e.g. "15 main"); in a container nothing starts it.
read -r VERSION CLUSTER PORT STATUS _ < <(pg_lsclusters -h | head -n 1)
if [ -z "${VERSION:-}" ]; then
  VERSION=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  pg_createcluster "$VERSION" main >&2
  read -r VERSION CLUSTER PORT STATUS _ < <(pg_lsclusters -h | head -n 1)
fi
if [ "$STATUS" != "online" ]; then
  pg_ctlcluster "$VERSION" "$CLUSTER" start >&2
fi
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
for _ in $(seq 30); do as_postgres pg_isready -q -p "$PORT" && break; sleep 1; done
as_postgres psql -q -p "$PORT" -v ON_ERROR_STOP=1 <<SQL >&2
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN
    CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD';
  END IF;
END \$\$;
SQL
as_postgres psql -q -p "$PORT" -tAc "SELECT 1 FROM pg_database WHERE datname = '$ROLE'" | grep -q 1 \
  || as_postgres createdb -p "$PORT" -O "$ROLE" "$ROLE"
echo "postgresql+psycopg://$ROLE:$PASSWORD@127.0.0.1:$PORT/$ROLE"
