#!/usr/bin/env bash
# Runs a script with the project's Node 24 (provisioned by ensure-env.sh when the machine's
# Node is older). TypeScript runs directly through Node's type stripping: no build step.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/lib/node-path.sh"
exec node "$@"
