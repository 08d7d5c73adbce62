"""The live region: each pick announced for screen readers, nothing before the first."""

from __future__ import annotations

import re

from webapp.inference import run_step_table

from .markup import label
from .seeded import BASE, PROMPT, SETTINGS, joined, page


def test_the_announcement_matches_the_pick(client, model, three):
    doc = page(client, **BASE, ids=joined(three))
    pick = run_step_table(model, PROMPT, three[:2], SETTINGS)
    assert doc.by_id("announce").attrs["aria-live"] == "polite"
    text = doc.by_id("announce").text().strip()
    assert re.fullmatch(r"r = \d\.\d{3}, picked '.+', \d+ %", text), text
    assert text.startswith(f"r = {pick.r:.3f}, picked '{label(pick.chosen.token)}', ")
    assert page(client, **BASE).by_id("announce").text().strip() == ""  # nothing picked yet
