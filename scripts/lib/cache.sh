# Sourced: the machine-wide set-up cache. What does not change between checkouts (Node 24, the
# Python environments, the model files, MinIO and the deploy tools built from their Go modules) is
# installed once per machine under $CUTROOM_CACHE, keyed by version, and each checkout links to it
# (.tools/node, .venv, .tools/models, …): a second clean clone on the same machine sets up in
# seconds, and a cold machine still installs everything itself.
CUTROOM_CACHE="${CUTROOM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/cutroom}"
export CUTROOM_CACHE

# cache_link LINK KEY [--adopt]: LINK (a path in the checkout) becomes a symlink to
# $CUTROOM_CACHE/KEY (created empty when new). With --adopt, a real folder already at LINK (set up
# before the cache existed) is moved into the cache when the cache has nothing for KEY yet; without
# it (Python environments, whose scripts name their own absolute path) it is removed.
cache_link() {
  local link="$1" target="$CUTROOM_CACHE/$2" adopt="${3:-}"
  mkdir -p "$(dirname "$target")" "$(dirname "$link")"
  if [ -L "$link" ]; then
    if [ "$(readlink "$link")" = "$target" ]; then
      mkdir -p "$target"
      return 0
    fi
    rm -f "$link"
  elif [ -e "$link" ]; then
    if [ "$adopt" = "--adopt" ] && [ ! -e "$target" ]; then mv "$link" "$target"; else rm -rf "$link"; fi
  fi
  mkdir -p "$target"
  ln -s "$target" "$link"
}

# cache_stamp_ok DIR VALUE / cache_stamp DIR VALUE: a finished install's stamp, kept inside the cached folder.
cache_stamp_ok() { [ -f "$1/.cutroom-stamp" ] && [ "$(cat "$1/.cutroom-stamp")" = "$2" ]; }
cache_stamp() { echo "$2" >"$1/.cutroom-stamp"; }
