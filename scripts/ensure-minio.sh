#!/usr/bin/env bash
# Provides an S3-compatible server for the integration suite at .tools/minio/minio,
# idempotently (an existing binary of the pinned version is kept).
#
# MinIO publishes no semver tags (its RELEASE.* tags are not module versions), so the Go module
# proxy serves it only as pseudo-versions. We pin one that is known to build with the Go on
# these machines. A cold build on 2 cores takes a few minutes (measured ~3-6 min, module
# downloads included); later runs reuse Go's module and build caches.
#
# Env: MINIO_GO_VERSION overrides the pinned module version (default below).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${MINIO_GO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
dest="$root/.tools/minio"
bin="$dest/minio"
stamp="$dest/version"
say() { printf '\033[1m[minio]\033[0m %s\n' "$*" >&2; }

if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
  exit 0
fi

command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || {
  say "Go is not installed: install Go >= 1.24 (golang.org/dl or Debian backports), then re-run"
  exit 1
}
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

mkdir -p "$dest"
say "building github.com/minio/minio@$version with $(go version | cut -d' ' -f3) (takes a few minutes on 2 cores)"
start=$(date +%s)
log="$dest/build.log"
# Build in the background so we can print a heartbeat: a silent multi-minute step looks hung.
GOBIN="$dest" GOFLAGS="${GOFLAGS:-} -trimpath" go install "github.com/minio/minio@$version" >"$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep 20
  kill -0 "$pid" 2>/dev/null && say "still building... $(( $(date +%s) - start ))s elapsed"
done
if ! wait "$pid"; then
  say "build failed; last lines of $log:"
  tail -20 "$log" >&2
  exit 1
fi
echo "$version" > "$stamp"
say "built $bin in $(( $(date +%s) - start ))s"
