"""Find and load the models that ship with the package, by name."""

from __future__ import annotations

import json
from pathlib import Path

from ..bigram import BigramModel
from ..errors import N_, UnknownModel
from ..model import LanguageModel
from ..transformer import TransformerModel
from . import llama_gguf

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
LOADERS = {"bigram": BigramModel.load, "transformer": TransformerModel.load, "gguf": llama_gguf.load}
DEFAULT_MODEL = "austen-transformer"


def load_model(folder: str | Path) -> LanguageModel:
    """Load the model in folder, choosing the loader by its config.json "type"."""
    config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    return LOADERS[config["type"]](folder)


def load_bundled(models_dir: str | Path = MODELS_DIR) -> dict[str, LanguageModel]:
    """Load every model folder under models_dir, keyed by model name, in the order of the folders."""
    models = {}
    for folder in sorted(Path(models_dir).iterdir()):
        if (folder / "config.json").is_file():
            model = load_model(folder)
            models[model.name] = model
    return models


def get_model(models: dict[str, LanguageModel], name: str) -> LanguageModel:
    try:
        return models[name]
    except KeyError:
        known = ", ".join(models)
        raise UnknownModel(N_("there is no model named %(name)s; the models are: %(known)s"), name=repr(name),
                           known=known) from None
