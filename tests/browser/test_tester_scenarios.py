"""The web tester runs an uploaded scenario file, and names the field of a bad one.

The snake is an always-``up`` one on loopback (:func:`careless_app`); the file holds two
positions saved from the built-in suite with :func:`entry_of` (the rules engine's moves).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from snakewar.games.battlesnake.tester import SCENARIOS
from snakewar.games.battlesnake.tester.files import entry_of, file_bytes
from tests.asgi_server import serve
from tests.games.battlesnake.tester.real_snakes import careless_app


@pytest.fixture(scope="module")
def careless_url() -> Iterator[str]:
    with serve(careless_app()) as url:
        yield url


def test_an_uploaded_scenario_file_runs_alone(
    base_url: str, careless_url: str, page: Page, tmp_path: Path
) -> None:
    chosen = [s for s in SCENARIOS if s.id in ("walls-corner", "walls-top-edge")]
    entries = [entry_of(s.request(), name=f"mine-{s.id}", title=f"mine: {s.title}") for s in chosen]
    upload = tmp_path / "mine.json"
    upload.write_bytes(file_bytes(entries))
    page.goto(base_url + "/test")
    page.get_by_test_id("tester-url").fill(careless_url)
    page.get_by_test_id("tester-scenarios").set_input_files(str(upload))
    page.get_by_test_id("tester-only-scenarios").check()
    page.get_by_test_id("run-tests").click()
    summary = page.get_by_test_id("tester-summary")
    # Always up: the top edge's position is lost where up is the wall.
    expect(summary).to_contain_text("FAIL", timeout=60_000)
    rows = page.get_by_test_id("tester-results").locator("tr")
    expect(rows).to_have_count(4 + len(entries))
    results = page.get_by_test_id("tester-results")
    # The page lists a scenario by its title, under its category.
    for entry in entries:
        expect(results).to_contain_text(entry["title"])
    expect(results).to_contain_text("custom")
    expect(summary).to_contain_text("survival ")


def test_a_bad_scenario_file_is_refused_naming_the_field(
    base_url: str, careless_url: str, page: Page, tmp_path: Path
) -> None:
    (scenario,) = [s for s in SCENARIOS if s.id == "walls-corner"]
    entry = entry_of(scenario.request(), name="liar")
    entry["acceptable"] = ["up", "down", "left", "right"]
    bad = tmp_path / "bad.json"
    bad.write_bytes(file_bytes([entry]))
    page.goto(base_url + "/test")
    page.get_by_test_id("tester-url").fill(careless_url)
    page.get_by_test_id("tester-scenarios").set_input_files(str(bad))
    page.get_by_test_id("run-tests").click()
    error = page.get_by_test_id("error")
    expect(error).to_contain_text("scenarios: ")
    expect(error).to_contain_text("scenario 'liar': field 'acceptable': the rules engine says")
    notjson = tmp_path / "notjson.json"
    notjson.write_text("{" + json.dumps("x"))
    page.get_by_test_id("tester-scenarios").set_input_files(str(notjson))
    page.get_by_test_id("run-tests").click()
    expect(error).to_contain_text("scenarios: the file is not JSON")
    expect(page.get_by_test_id("tester-summary")).to_have_text("")
