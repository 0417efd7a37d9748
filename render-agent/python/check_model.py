"""Checks that a Whisper model loads offline.

    check_model.py NAME_OR_DIR   prints the resolved folder; exit 0 when model.bin,
                                 tokenizer.json and config.json are there, else 1
    check_model.py --list        prints {"models": [...]}: names loadable without the network

Used by scripts/ensure-env.sh and by the render-agent's capability announcement."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_paths import list_local_models, missing_files, resolve_local  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", nargs="?", help="model name (e.g. tiny.en) or a model folder")
    parser.add_argument("--list", action="store_true", help="print the locally available models as JSON")
    args = parser.parse_args()
    if args.list:
        print(json.dumps({"models": list_local_models()}))
        return 0
    if not args.model:
        parser.error("give a model name or --list")
    folder = resolve_local(args.model)
    if folder is None:
        print(f"model {args.model!r} is not available offline: not a folder, not bundled, not in the Hugging Face cache", file=sys.stderr)
        return 1
    missing = missing_files(folder)
    if missing:
        print(f"model folder {folder} lacks {', '.join(missing)}", file=sys.stderr)
        return 1
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
