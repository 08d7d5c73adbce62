"""A server without the pretrained model: the page names the command that fetches it, and the command works.

The server here has an empty user model folder (TOKEN_BY_TOKEN_MODELS), as a fresh install has.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import LOCAL_HOST, SERVER_START_TIMEOUT, free_port, stop, wait_until_answering
from playwright.sync_api import Page, expect

HERE = Path(__file__).resolve().parent
MODEL = "smollm2-135m"
COMMAND = f"token-by-token fetch-model {MODEL}"


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m webapp` with an empty model folder, on a free port."""
    port = free_port()
    url = f"http://{LOCAL_HOST}:{port}"
    empty = tmp_path_factory.mktemp("no-models")
    env = {**os.environ, "TOKEN_BY_TOKEN_MODELS": str(empty), "PYTHONUNBUFFERED": "1"}
    env.pop("TOKEN_BY_TOKEN_MODEL_FILE", None)
    server = subprocess.Popen([sys.executable, "-m", "webapp", "--host", LOCAL_HOST, "--port", str(port)],
                              env=env, cwd=HERE.parent.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        problem = wait_until_answering(url + "/healthz", server, SERVER_START_TIMEOUT)
        if problem:
            pytest.fail(problem, pytrace=False)
        yield url
    finally:
        stop(server)


def test_the_page_names_the_console_script_and_it_runs_from_any_folder(page: Page, bare_server, tmp_path) -> None:
    page.goto(bare_server + "/")
    hint = page.locator(".more-models")
    expect(hint.locator("code")).to_have_text(COMMAND)
    expect(hint).to_contain_text("then reload this page")

    script = Path(sys.executable).parent / ("token-by-token.exe" if os.name == "nt" else "token-by-token")
    if not script.exists():
        pytest.skip("the package is not installed in this Python (pip install -e .), so there is no console script")
    program, *arguments = COMMAND.split()
    result = subprocess.run([str(script), *arguments[:1], "--help"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=60, check=False)  # --help: the command as typed, without the download
    assert result.returncode == 0, result.stderr
    assert "usage: token-by-token fetch-model" in result.stdout and MODEL in result.stdout


def test_a_link_to_the_model_explains_how_to_get_it(page: Page, bare_server) -> None:
    response = page.goto(bare_server + f"/?model={MODEL}&prompt=Hello")
    assert response.status == 400
    error = page.get_by_role("alert")
    expect(error).to_contain_text("Could not show this screen:")
    expect(error).to_contain_text(f"this server does not have the model {MODEL} yet")
    expect(error).to_contain_text(f"run {COMMAND} in a terminal on the server's computer")
    expect(page.get_by_role("link", name="Start again from the default screen")).to_be_visible()
