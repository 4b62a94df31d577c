#!/usr/bin/env bash
# Makes sure what the full test suite needs is on this machine: Debian's Chromium for the
# Playwright specs (never a downloaded browser), and PostgreSQL + Redis answering on
# 127.0.0.1 for the fidelity suite. Idempotent; needs root (apt-get) on a fresh Debian machine.
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

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "== starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
