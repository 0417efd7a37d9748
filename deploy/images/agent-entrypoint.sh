#!/bin/sh
# Entrypoint of the render-agent images. Enrollment (docs/operators.md): a host without a
# credential file trades a one-use token for a credential of its own, kept in
# AGENT_CREDENTIAL_FILE (put it on a volume that outlives the container). Besides
# AGENT_ENROLLMENT_TOKEN, a container may get the token as a file, AGENT_ENROLLMENT_TOKEN_FILE,
# read here only (the agent never sees the variable): compose's `enroll` one-shot writes one per
# agent into a shared volume; Kubernetes mounts one key of a Secret per pod. The file may appear a
# little after the container starts, so it is waited for.
set -eu
cred="${AGENT_CREDENTIAL_FILE:?AGENT_CREDENTIAL_FILE must be set (on a persistent volume)}"
token_file="${AGENT_ENROLLMENT_TOKEN_FILE:-}"
if [ ! -s "$cred" ] && [ -z "${AGENT_ENROLLMENT_TOKEN:-}" ] && [ -n "$token_file" ]; then
  waited=0
  while [ ! -s "$token_file" ] && [ "$waited" -lt "${AGENT_ENROLLMENT_WAIT_SECONDS:-120}" ]; do
    sleep 2
    waited=$((waited + 2))
  done
  if [ ! -s "$token_file" ]; then
    echo "render-agent: no credential at $cred and no enrollment token at $token_file; mint one (deploy/README.md, Enrollment)" >&2
    exit 78
  fi
  AGENT_ENROLLMENT_TOKEN="$(cat "$token_file")"
  export AGENT_ENROLLMENT_TOKEN
fi
unset AGENT_ENROLLMENT_TOKEN_FILE AGENT_ENROLLMENT_WAIT_SECONDS
exec node /opt/cutroom/render-agent/src/main.ts "$@"
