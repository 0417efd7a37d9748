#!/usr/bin/env bash
# (a) DBOS on PGlite: which wiring keeps transactions isolated. One JSON line (or the failure) per case in results/pglite-checks.txt.
set -u
cd /tmp/dbos-spike
source /work/main/scripts/lib/node-path.sh
export PG_URL=postgres://postgres@127.0.0.1:55432/postgres
OUT=results/pglite-checks.txt; : > $OUT
run() { echo "== $*" >> $OUT; env "$@" 2>&1 | grep -v -i deprecation | grep -v '^    at ' | sort | uniq -c | sort -rn | head -8 >> $OUT; echo "rc=${PIPESTATUS[0]}" >> $OUT; }
for k in pg pglite-np pglite-socket; do run timeout 60 node src/smoke.ts $k; done
run NP_MAX=4 timeout 30 node src/smoke.ts pglite-np
run timeout 90 node src/interleave.ts pg direct
run timeout 90 node src/interleave.ts pglite-np direct
run timeout 90 node src/interleave.ts pglite-np pool
run STEP_APP=1 timeout 90 node src/interleave.ts pglite-np pool
run timeout 90 node src/interleave.ts pglite-socket direct
run timeout 90 node src/interleave.ts pglite-socket socket
