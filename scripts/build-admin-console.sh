#!/usr/bin/env bash
# Builds the operators' console (admin-console/ → admin-console/dist, served by the coordinator at
# /admin) with esbuild, unless dist is newer than every source. `--force` builds anyway.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/admin-console"
stamp="dist/index.html"
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] &&
  [ -z "$(find src build.ts package.json tsconfig.json "$root/package-lock.json" -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
exec bash "$root/scripts/run-node.sh" build.ts
