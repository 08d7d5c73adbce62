"""Every image the project's documents show is in the tree (a front page with a broken image looks abandoned)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img[^>]+src=\"([^\"]+)\"")


def images(document: Path) -> list[str]:
    return [a or b for a, b in IMAGE.findall(document.read_text(encoding="utf-8"))]


def test_the_readme_shows_at_least_one_picture_of_the_app() -> None:
    assert images(ROOT / "README.md")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d.name)
def test_every_image_a_document_names_exists(document: Path) -> None:
    for src in images(document):
        if re.match(r"[a-z]+:", src):  # an address, not a file of the project
            continue
        path = (document.parent / src).resolve()
        assert path.is_file() and path.stat().st_size > 1000, f"{document.name} shows {src}, which is not in the tree"
