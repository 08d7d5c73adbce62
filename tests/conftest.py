"""Fixtures shared by every test folder."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Return the repository's root folder."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Return the git-ignored folder for files a person looks at after the run (screenshots)."""
    path = REPO_ROOT / "artifacts"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory):
    """A real redis-server for the session (skipped, saying why, where none is installed)."""
    from redis_server import start_redis, stop_redis

    url, process = start_redis(tmp_path_factory.mktemp("redis"))
    yield url
    stop_redis(process)
