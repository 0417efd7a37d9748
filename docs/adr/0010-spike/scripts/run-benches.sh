#!/usr/bin/env bash
# (d) per-step latency, 3 runs per configuration, one JSON line per run in results/bench.jsonl.
# Needs: scripts/start-pg.sh (fsync off, port 55432) and PGDIR=/tmp/dbos-spike/pgdata-fsync PGPORT=55433 FSYNC=on scripts/start-pg.sh
set -u
cd /tmp/dbos-spike
source /work/main/scripts/lib/node-path.sh
OUT=results/bench.jsonl; : > $OUT
PGOFF=postgres://postgres@127.0.0.1:55432/postgres
PGON=postgres://postgres@127.0.0.1:55433/postgres
clean() { grep -v -i deprecation | tail -1; }
for r in 1 2 3; do
  PG_URL=$PGOFF node src/bench.ts pg 60 2>&1 | clean | sed 's/^{/{"pg":"fsync off",/' >> $OUT
  BASE_VIA=pg PG_URL=$PGOFF node src/bench.ts pg 60 2>&1 | clean | sed 's/^{/{"pg":"fsync off",/' >> $OUT
  PG_URL=$PGON node src/bench.ts pg 60 2>&1 | clean | sed 's/^{/{"pg":"fsync on",/' >> $OUT
  rm -rf pglite-bench; PGLITE_DIR=/tmp/dbos-spike/pglite-bench node src/bench.ts pglite-np 60 2>&1 | clean >> $OUT
  rm -rf pglite-bench; BASE_VIA=pool PGLITE_DIR=/tmp/dbos-spike/pglite-bench node src/bench.ts pglite-np 60 2>&1 | clean >> $OUT
  (cd alt-absurd && PG_URL=$PGOFF node bench.ts pg 60 2>&1 | clean | sed 's/^{/{"pg":"fsync off",/') >> $OUT
  (cd alt-absurd && PG_URL=$PGON node bench.ts pg 60 2>&1 | clean | sed 's/^{/{"pg":"fsync on",/') >> $OUT
  rm -rf pglite-bench; (cd alt-absurd && PGLITE_DIR=/tmp/dbos-spike/pglite-bench node bench.ts pglite-np 60 2>&1 | clean) >> $OUT
done
rm -rf pglite-bench
