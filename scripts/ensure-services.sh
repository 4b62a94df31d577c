#!/usr/bin/env bash
# Makes sure what the full test suite needs is on this machine: Debian's Chromium for the
# Playwright specs (never a downloaded browser), and PostgreSQL, Redis, PgBouncer and etcd
# answering on 127.0.0.1 for the fidelity suite. Idempotent; needs root (apt-get) on a fresh
# Debian machine; fails (non-zero) when a server cannot be started.
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  echo "== installing Debian's chromium (for Playwright)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "== starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c 'CREATE DATABASE test' >/dev/null

# redis-server is needed even when a Redis already answers: the transcript replay of a Redis
# failover starts a primary and a replica of its own (fidelity/redisPair.ts).
if ! command -v redis-server >/dev/null 2>&1; then
  echo "== installing Debian's redis-server"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "== starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi

# PgBouncer (Debian's), for the fidelity suite's pooler rows: two daemons in front of the
# PostgreSQL above, pool_mode = transaction on 127.0.0.1:6432 and pool_mode = session on
# 127.0.0.1:6433, two server connections each (default_pool_size = 2, as the suite's model), any
# database (`*`: the suite's per-run database too), trust auth. Config, logs and pid files live in
# PGBOUNCER_DIR (default /tmp/lockscope-pgbouncer). A port that already answers is left alone.
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "== installing Debian's pgbouncer"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
fi
PGBOUNCER_BIN="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"
PGBOUNCER_DIR="${PGBOUNCER_DIR:-/tmp/lockscope-pgbouncer}"
mkdir -p "$PGBOUNCER_DIR"
echo '"postgres" ""' > "$PGBOUNCER_DIR/userlist.txt"
for spec in transaction:6432 session:6433; do
  mode="${spec%%:*}"; port="${spec##*:}"
  if pg_isready -h 127.0.0.1 -p "$port" -q 2>/dev/null; then continue; fi
  echo "== starting PgBouncer ($mode mode) on 127.0.0.1:$port"
  cat > "$PGBOUNCER_DIR/pgbouncer-$port.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $PGBOUNCER_DIR/userlist.txt
admin_users = postgres
pool_mode = $mode
default_pool_size = 2
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 200
server_reset_query = DISCARD ALL
ignore_startup_parameters = extra_float_digits
logfile = $PGBOUNCER_DIR/pgbouncer-$port.log
pidfile = $PGBOUNCER_DIR/pgbouncer-$port.pid
INI
  chmod 755 "$PGBOUNCER_DIR"; chmod 644 "$PGBOUNCER_DIR"/*.ini "$PGBOUNCER_DIR/userlist.txt"
  chown -R postgres "$PGBOUNCER_DIR" 2>/dev/null || true
  # PgBouncer refuses to run as root: -u drops to the postgres user.
  if [ "$(id -u)" = 0 ]; then "$PGBOUNCER_BIN" -d -u postgres "$PGBOUNCER_DIR/pgbouncer-$port.ini"; else "$PGBOUNCER_BIN" -d "$PGBOUNCER_DIR/pgbouncer-$port.ini"; fi
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p "$port" -q && break; sleep 1; done
done

# etcd (Debian's etcd-server 3.4 and etcd-client's etcdctl), for the fidelity suite's "etcd lock
# service" row: one member on 127.0.0.1 (clients on ETCD_CLIENT_PORT, default 2379; peers on
# ETCD_PEER_PORT, default 2380), its data, log and pid file in ETCD_DIR (default
# /tmp/lockscope-etcd). The package's own service is not used (no systemd here). An etcd already
# answering on the client port is left alone.
if ! command -v etcd >/dev/null 2>&1 || ! command -v etcdctl >/dev/null 2>&1; then
  echo "== installing Debian's etcd-server and etcd-client"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server etcd-client >/dev/null
fi
ETCD_DIR="${ETCD_DIR:-/tmp/lockscope-etcd}"
ETCD_CLIENT_PORT="${ETCD_CLIENT_PORT:-2379}"
ETCD_PEER_PORT="${ETCD_PEER_PORT:-2380}"
etcd_healthy() { ETCDCTL_API=3 etcdctl --endpoints="127.0.0.1:$ETCD_CLIENT_PORT" --dial-timeout=1s --command-timeout=2s endpoint health >/dev/null 2>&1; }
if ! etcd_healthy; then
  echo "== starting etcd on 127.0.0.1:$ETCD_CLIENT_PORT (data in $ETCD_DIR)"
  mkdir -p "$ETCD_DIR"
  # setsid: the server outlives this script (CI runs the suites after it returns). etcd reads
  # ETCD_* variables as its flags: this script's own are kept from it.
  env -u ETCD_DIR -u ETCD_CLIENT_PORT -u ETCD_PEER_PORT setsid etcd --name lockscope --data-dir "$ETCD_DIR/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "lockscope=http://127.0.0.1:$ETCD_PEER_PORT" \
    >"$ETCD_DIR/etcd.log" 2>&1 < /dev/null &
  etcd_pid=$!
  echo "$etcd_pid" > "$ETCD_DIR/etcd.pid"
  # Up to 30 s; a server that exited (a port in use, a bad data dir) ends the wait at once.
  for _ in $(seq 1 30); do etcd_healthy && break; kill -0 "$etcd_pid" 2>/dev/null || break; sleep 1; done
  if ! etcd_healthy; then
    echo "etcd did not start; its log ($ETCD_DIR/etcd.log) ends:" >&2
    tail -n 20 "$ETCD_DIR/etcd.log" >&2
    exit 1
  fi
fi
