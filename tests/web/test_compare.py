"""The same logits at other temperatures, side by side with the chosen one."""

from __future__ import annotations

import pytest

from webapp.inference import Settings, run_step_table

from .markup import label, pct
from .seeded import BASE, PROMPT, joined, page


@pytest.mark.parametrize(("temperature", "columns"), [("1", ["0.5", "1", "1.5"]), ("0.7", ["0.5", "0.7", "1", "1.5"]),
                                                      ("0", ["0", "0.5", "1", "1.5"])])
def test_the_compare_table_has_the_three_temperatures_and_the_chosen_one(client, model, three, temperature, columns):
    doc = page(client, **BASE, ids=joined(three), temperature=temperature)
    table = doc.by_id("compare").find("table")
    heads = table.find("thead").find_all("th")[1:]
    assert [" ".join(th.own_text().split()) for th in heads] == [f"T = {c}" for c in columns]
    current = [th for th in heads if "current" in th.classes]
    assert len(current) == 1 and current[0].own_text().strip() == f"T = {temperature}"
    assert "(chosen)" in current[0].text()
    result = run_step_table(model, PROMPT, three[:2], Settings(temperature=float(temperature), seed=7))
    body = table.find("tbody").find_all("tr")
    assert [tr.find("th").text() for tr in body] == [label(r.token) for r in result.rows[:5]]
    k = columns.index(temperature)
    for tr, row in zip(body, result.rows[:5], strict=True):
        cells = tr.find_all("td")
        assert len(cells) == len(columns)
        assert cells[k].text() == pct(row.prob) and "current" in cells[k].classes
