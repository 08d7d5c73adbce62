"""The downloads: the JSON trace with forced tokens and typed r's, and the CSV of the table on screen."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from on_screen import (
    click_step,
    expect_step_done,
    expect_url_param,
    generated,
    no_animation,
    not_picked_row_token,
    table_rows,
    url_ids,
)
from playwright.sync_api import Page, expect
from stepping import SEED, START, state_url

from webapp.inference.derived.export import CSV_COLUMNS, RUN_COLUMNS, read_table_csv


@no_animation
def test_forced_tokens_and_typed_r_survive_a_reload_and_reach_the_json_export(page: Page) -> None:
    page.goto(START + "&view=teacher")  # the teacher's r: open in the teacher's view
    click_step(page, 0)
    token = not_picked_row_token(page)
    page.get_by_role("button", name=f"Choose '{token}' instead", exact=True).click()
    expect_url_param(page, "src", "f")
    page.get_by_label("Your r").fill("0.999")
    click_step(page, 1)
    click_step(page, 2)
    expect_url_param(page, "src", "f,0.999,s")
    ids = url_ids(page)

    page.reload()

    assert url_ids(page) == ids
    expect(generated(page)).to_have_count(3)
    expect(generated(page).nth(0)).to_have_class(re.compile(r"\bgen-forced\b"))
    expect(generated(page).nth(0)).to_have_text(token)
    expect(generated(page).nth(1)).to_have_class(re.compile(r"\bgen-typed\b"))
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download JSON").click()
    download = download_info.value
    assert download.suggested_filename == "trace.json"
    trace = json.loads(Path(download.path()).read_text(encoding="utf-8"))

    assert trace["generated"] == ids
    steps = trace["steps"]
    assert len(steps) == len(ids) == generated(page).count()
    assert [s["forced"] for s in steps] == [True, False, False]
    assert [s["token_in_text"]["id"] for s in steps] == ids
    assert steps[0]["token_in_text"]["token"] == token and steps[0]["pick"]["id"] != ids[0]
    assert (steps[1]["r"], steps[1]["r_source"]) == (0.999, "given")
    assert steps[2]["r_source"] == "seed" and steps[1]["pick"]["id"] == ids[1] and steps[2]["pick"]["id"] == ids[2]
    for i, s in enumerate(steps):
        assert s["step"] == i and s["rows"] and s["seed"] == int(SEED)
        assert s["pick"]["lo"] <= s["r"] < s["pick"]["hi"] or s["pick"]["hi"] == 1.0


@no_animation
def test_download_csv_holds_the_table_on_screen(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids, top_k="8"))
    generated(page).nth(1).click()
    expect_step_done(page, 1)

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download CSV").click()
    download = download_info.value

    assert download.suggested_filename == "logits-step-1.csv"
    heading, lines = read_table_csv(Path(download.path()).read_text(encoding="utf-8"))
    assert (heading["prompt"], heading["step"], heading["top_k"], heading["seed"]) == ("The girl saw a", "1", "8", SEED)
    assert 0 <= float(heading["r"]) < 1
    assert tuple(lines[0]) == CSV_COLUMNS
    body = lines[1:-1]
    assert [(line[0], line[1], line[2]) for line in body] == table_rows(page)  # the pick's row too, if below
    kept = [line[CSV_COLUMNS.index("kept")] for line in body]
    assert kept.count("1") == 8 and set(kept) <= {"0", "1"}  # top-k = 8
    assert lines[-1][1].endswith("other tokens")


@no_animation
def test_download_the_run_as_csv_has_a_line_per_generated_token(page: Page, expected_ids) -> None:
    page.goto(state_url(expected_ids, top_k="8"))
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download the run as CSV").click()
    download = download_info.value
    assert download.suggested_filename == "run.csv"
    lines = list(csv.reader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    assert tuple(lines[0]) == RUN_COLUMNS
    run = [dict(zip(RUN_COLUMNS, line, strict=True)) for line in lines[1:]]
    assert [int(line["id"]) for line in run] == expected_ids == url_ids(page)
    assert [line["step"] for line in run] == [str(i) for i in range(len(expected_ids))]
    assert {line["picked_by"] for line in run} == {"seeded r"} and {line["top_k"] for line in run} == {"8"}
    assert [line["token"] for line in run] == [generated(page).nth(i).inner_text() for i in range(len(run))]
