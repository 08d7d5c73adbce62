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
    assert re.fullmatch(r"r = \d\.\d{3}, picked '.+', \d+\.\d %", text), text
    # the table's figure, to its one decimal: a pick of 0.7 % is not announced as 1 %
    assert text == f"r = {pick.r:.3f}, picked '{label(pick.chosen.token)}', {100 * pick.chosen.prob_kept:.1f} %"
    assert page(client, **BASE).by_id("announce").text().strip() == ""  # nothing picked yet
