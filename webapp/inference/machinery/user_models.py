"""Models that do not ship with the package: the user's model folder, and GGUF files named by path.

    ~/.cache/token-by-token/models/smollm2-135m/config.json   (written by `python -m webapp fetch-model`)

The folder is $TOKEN_BY_TOKEN_MODELS if set, else the platform's cache folder: $XDG_CACHE_HOME or
~/.cache on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows, then token-by-token/models.
Every sub-folder with a config.json is loaded like a bundled model, by its "type" (a GGUF model is
{"type": "gguf", "name": "smollm2-135m", "file": "SmolLM2-135M-Instruct.Q4_1.gguf"}).

A GGUF file anywhere else is loaded by path: `--model-file PATH` on the command line, or
$TOKEN_BY_TOKEN_MODEL_FILE (several paths joined by os.pathsep). Its model is named after the file,
e.g. "smollm2-135m-instruct.q4_1".

A model in the user's folder that fails to load is skipped with a warning, so that a broken
download never stops the app; a file named by path must load.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..errors import N_, InferenceError
from ..model import LanguageModel
from .registry import MODELS_DIR, load_bundled, load_model

MODELS_ENV = "TOKEN_BY_TOKEN_MODELS"
MODEL_FILE_ENV = "TOKEN_BY_TOKEN_MODEL_FILE"


def user_models_dir() -> Path:
    """The folder that fetched models go to: $TOKEN_BY_TOKEN_MODELS, else the platform's cache folder."""
    if os.environ.get(MODELS_ENV):
        return Path(os.environ[MODELS_ENV]).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "token-by-token" / "models"


def model_files() -> list[Path]:
    """The GGUF files named in $TOKEN_BY_TOKEN_MODEL_FILE (paths joined by os.pathsep)."""
    value = os.environ.get(MODEL_FILE_ENV, "")
    return [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]


def load_user_models(folder: Path | None = None) -> dict[str, LanguageModel]:
    """Load every model folder in the user's model folder; skip, with a warning, any that fails."""
    folder = user_models_dir() if folder is None else folder
    models = {}
    if not folder.is_dir():
        return models
    for sub in sorted(folder.iterdir()):
        if not (sub / "config.json").is_file():
            continue
        try:
            model = load_model(sub)
        except Exception as e:  # noqa: BLE001 - any broken download: the app goes on without it
            print(f"token-by-token: skipped the model in {sub}: {e}", file=sys.stderr)
            continue
        models[model.name] = model
    return models


def model_file_name(path: str | Path) -> str:
    """The name of a model loaded by path.

    >>> model_file_name("models/Foo 1B.Q8_0.gguf")
    'foo-1b.q8_0'
    """
    return re.sub(r"[^a-z0-9._-]+", "-", Path(path).stem.lower()).strip("-") or "gguf-model"


def load_model_file(path: str | Path) -> LanguageModel:
    """Load a GGUF file by path, naming the model after the file."""
    from . import llama_gguf

    path = Path(path)
    try:
        return llama_gguf.from_gguf(path, model_file_name(path), description=f"Loaded from {path}.")
    except (ValueError, KeyError) as e:
        raise InferenceError(N_("cannot load %(path)s: %(reason)s"), path=str(path), reason=str(e)) from None


def load_available(models_dir: str | Path = MODELS_DIR) -> dict[str, LanguageModel]:
    """The bundled models, then those in the user's model folder, then the GGUF files named by path."""
    models = load_bundled(models_dir)
    models.update(load_user_models())
    for path in model_files():
        model = load_model_file(path)
        models[model.name] = model
    return models
