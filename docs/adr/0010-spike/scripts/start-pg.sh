#!/usr/bin/env bash
# Throwaway Postgres 15 (Debian binaries), as the project's test fixture does (test/fixtures/postgres.ts):
# run as the postgres user, trust auth, fsync off, synchronous_commit off. Prints the URL.
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
DIR=${PGDIR:-/tmp/dbos-spike/pgdata}
PORT=${PGPORT:-55432}
FSYNC=${FSYNC:-off}   # FSYNC=on for a durable cluster
if [ ! -d "$DIR/data" ]; then
  mkdir -p "$DIR"; chown postgres:postgres "$DIR"
  runuser -u postgres -- $BIN/initdb -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >/dev/null
fi
extra=()
if [ "$FSYNC" = off ]; then extra=(-F -c synchronous_commit=off -c full_page_writes=off); fi
runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w start -o "-p $PORT -h 127.0.0.1 -k $DIR ${extra[*]} -c max_connections=200" >/dev/null
echo "postgres://postgres@127.0.0.1:$PORT/postgres"
