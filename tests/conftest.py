"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent

# Properties never fail on wall-clock time (no deadline), in any profile. HYPOTHESIS_PROFILE=ci (what
# .ci/run sets) draws the same examples on every run, so a failure in CI reproduces on any machine; a
# property that fails for an example it finds is fixed, and the example pinned with @example.
# HYPOTHESIS_PROFILE=thorough runs every property with many more examples (minutes, not seconds).
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("dev"), derandomize=True, database=None, print_blob=True)
settings.register_profile("thorough", settings.get_profile("dev"), max_examples=3000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


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
