#!/usr/bin/env bash
DIR=${PGDIR:-/tmp/dbos-spike/pgdata}
runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$DIR/data" -m fast stop
