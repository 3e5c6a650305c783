#!/usr/bin/env bash
# A local Citus cluster for development and the TEST_DB=citus suites: a coordinator and two workers,
# each a PostgreSQL 15 cluster of its own (pg_createcluster) on 127.0.0.1 with trust auth, `citus`
# preloaded and pgvector available, and a database `arbiter` with both extensions on every node and
# the workers registered with the coordinator. Needs scripts/citus/install.sh first; runs as root.
#
#   scripts/citus/cluster.sh start    # idempotent; its last line is the coordinator's DATABASE_URL
#   scripts/citus/cluster.sh status
#   scripts/citus/cluster.sh stop     # stops the three servers, keeps their data
#   scripts/citus/cluster.sh destroy  # stops them and deletes their data
#
# See docs/SCALING.md "Running on Citus".
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
COORDINATOR_PORT=${CITUS_COORDINATOR_PORT:-5440}
WORKER_PORTS=("${CITUS_WORKER1_PORT:-5441}" "${CITUS_WORKER2_PORT:-5442}")
NAMES=(citus-coordinator citus-worker1 citus-worker2)
PORTS=("$COORDINATOR_PORT" "${WORKER_PORTS[@]}")
DATABASE=arbiter
HOST=127.0.0.1

ctl() {
  # Containers without systemd: pg_ctlcluster must not redirect to systemctl.
  pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$1" "$2" 2>/dev/null || pg_ctlcluster "$PG_MAJOR" "$1" "$2"
}

exists() { [ -d "/etc/postgresql/$PG_MAJOR/$1" ]; }
online() { pg_lsclusters -h 2>/dev/null | awk -v n="$1" '$2 == n && $4 ~ /^online/ { found = 1 } END { exit !found }'; }
sql() { psql -X -q -v ON_ERROR_STOP=1 -h "$HOST" -U postgres -p "$1" -d "$2" -Atc "$3"; }

create_node() {
  local name=$1 port=$2 conf=/etc/postgresql/$PG_MAJOR/$1
  pg_createcluster "$PG_MAJOR" "$name" -p "$port" >/dev/null
  # Local test cluster: trust on loopback only, like the CI PostgreSQL on 5432.
  cat >"$conf/pg_hba.conf" <<HBA
local all all trust
host all all 127.0.0.1/32 trust
host all all ::1/128 trust
HBA
  # max_prepared_transactions: Citus commits multi-shard writes with two-phase commit.
  # wal_level logical: shard moves (citus_move_shard_placement, the rebalancer) use logical replication.
  cat >"$conf/conf.d/90-citus.conf" <<CONF
listen_addresses = '$HOST'
port = $port
shared_preload_libraries = 'citus'
max_connections = 300
max_prepared_transactions = 300
wal_level = logical
autovacuum = off
CONF
}

wait_ready() {
  for _ in $(seq 1 60); do
    sql "$1" postgres 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "citus: the server on port $1 did not accept connections" >&2
  return 1
}

start() {
  if [ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] || [ ! -f "$("$PG_CONFIG" --sharedir)/extension/vector.control" ]; then
    echo "citus: the citus or vector extension is not installed: run scripts/citus/install.sh first" >&2
    exit 1
  fi
  for i in "${!NAMES[@]}"; do
    exists "${NAMES[$i]}" || create_node "${NAMES[$i]}" "${PORTS[$i]}"
    online "${NAMES[$i]}" || ctl "${NAMES[$i]}" start
  done
  for port in "${PORTS[@]}"; do
    wait_ready "$port"
    if [ -z "$(sql "$port" postgres "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" ]; then
      sql "$port" postgres "CREATE DATABASE $DATABASE"
    fi
    # Only when missing: once a worker is registered, Citus refuses DDL there, even CREATE EXTENSION IF NOT EXISTS.
    for ext in citus vector; do
      if [ -z "$(sql "$port" "$DATABASE" "SELECT 1 FROM pg_extension WHERE extname = '$ext'")" ]; then
        sql "$port" "$DATABASE" "CREATE EXTENSION $ext"
      fi
    done
  done
  sql "$COORDINATOR_PORT" "$DATABASE" "SELECT citus_set_coordinator_host('$HOST', $COORDINATOR_PORT)" >/dev/null
  for port in "${WORKER_PORTS[@]}"; do
    # citus_add_node returns the existing node's id when it is already registered.
    sql "$COORDINATOR_PORT" "$DATABASE" "SELECT citus_add_node('$HOST', $port)" >/dev/null
  done
  status
  echo "postgres://postgres@$HOST:$COORDINATOR_PORT/$DATABASE"
}

status() {
  local all_up=0
  for i in "${!NAMES[@]}"; do
    if ! exists "${NAMES[$i]}"; then
      echo "${NAMES[$i]} (port ${PORTS[$i]}): not created"
      all_up=1
    elif online "${NAMES[$i]}"; then
      echo "${NAMES[$i]} (port ${PORTS[$i]}): online"
    else
      echo "${NAMES[$i]} (port ${PORTS[$i]}): down"
      all_up=1
    fi
  done
  if online "${NAMES[0]}"; then
    echo "workers: $(sql "$COORDINATOR_PORT" "$DATABASE" "SELECT string_agg(node_name || ':' || node_port, ' ' ORDER BY node_port) FROM citus_get_active_worker_nodes()" 2>/dev/null || echo '?')"
  fi
  return $all_up
}

stop() {
  for name in "${NAMES[@]}"; do
    if exists "$name" && online "$name"; then ctl "$name" stop; fi
  done
  echo "citus: stopped"
}

destroy() {
  for name in "${NAMES[@]}"; do
    if exists "$name"; then pg_dropcluster --stop "$PG_MAJOR" "$name"; fi
  done
  echo "citus: destroyed"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  destroy) destroy ;;
  *)
    echo "usage: $0 start|stop|status|destroy" >&2
    exit 2
    ;;
esac
