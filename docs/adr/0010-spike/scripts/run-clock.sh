#!/usr/bin/env bash
# (b) manual clock vs DBOS sleeps and workflow timeouts: results/clock.jsonl
cd /tmp/dbos-spike; source /work/main/scripts/lib/node-path.sh; export PG_URL=postgres://postgres@127.0.0.1:55432/postgres
: > results/clock.jsonl
for m in date all; do for k in pg pglite-np; do MODE=$m timeout 90 node src/clock-test.ts $k 2>&1 | grep '^{' >> results/clock.jsonl; done; done
