"""The tester's verdicts on snakes built like real ones: one request at a time.

Each snake of :mod:`tests.games.battlesnake.tester.real_snakes` is served over real HTTP by one
uvicorn worker and blocks while it works, as a Flask or Node snake does.  With the
defaults (one game at a time, standard rules; an ample timeout, :data:`AMPLE_MS`) none
of them is failed for what it never meets in play; the one with module globals fails
under parallel load, and those failures are played again alone and reported as
load-only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snakewar import cli
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import make_client
from snakewar.games.battlesnake.tester import SCENARIOS, TesterReport, run_tester, select_scenarios
from tests.asgi_server import serve
from tests.games.battlesnake.tester import real_snakes

APPS = {
    "slow": real_snakes.slow_app,
    "globals": real_snakes.globals_app,
    "plain": real_snakes.plain_app,
    "strict": real_snakes.strict_app,
}


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with (
        serve(APPS["slow"]()) as slow,
        serve(APPS["globals"]()) as globals_,
        serve(APPS["plain"]()) as plain,
        serve(APPS["strict"]()) as strict,
    ):
        yield {"slow": slow, "globals": globals_, "plain": plain, "strict": strict}


AMPLE_MS = 10_000
"""The tests' move timeout.  These snakes answer in 20 ms at most, so that the default
500 ms would do on a quiet machine; but the snakes share this process with the tester,
and on a busy one a reply can take longer.  The verdicts here are about what the snakes
answer, never how fast (the tester's timeouts are tested in ``test_tester.py``)."""


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``snakewar ARGS`` with an ample ``--timeout`` (see :data:`AMPLE_MS`)."""
    capsys.readouterr()
    code = cli.main([*args, "--timeout", str(AMPLE_MS)])
    out, err = capsys.readouterr()
    return code, out, err


def _strategy_ids() -> set[str]:
    return {s.id for s in select_scenarios() if not s.survival}


@pytest.mark.parametrize("name", ["slow", "globals", "plain", "strict"])
def test_single_threaded_snakes_pass_with_the_defaults(
    name: str, urls: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(["test", urls[name], "--json"], capsys)
    report = json.loads(out)
    failed = [
        (s["id"], s["first_failure"]["variant"], s["first_failure"]["error"])
        for s in report["scenarios"]
        if s["kind"] == "survival" and not s["passed"]
    ]
    assert failed == [], name
    assert all(c["passed"] for c in report["checks"]), report["checks"]
    assert code == 0 and report["exit_code"] == 0 and report["passed"], err
    assert report["parallel"] == 1 and report["rulesets"] == ["standard"]
    assert report["load_only"] == []
    # Standard rules only: no hazards or wrapped boards unless asked for.
    assert [s["id"] for s in report["scenarios"]] == [s.id for s in select_scenarios()]
    assert {s["ruleset"] for s in report["scenarios"]} == {"standard"}
    survival = report["survival"]
    assert survival["passed"] == survival["total"] == len(select_scenarios()) - len(_strategy_ids())
    # They never hunt: every free kill is missed, which costs nothing.
    missed = {s["id"] for s in report["scenarios"] if not s["passed"]}
    assert {s["id"] for s in report["scenarios"] if s["category"] == "head-to-head-win"} <= missed
    assert missed <= _strategy_ids()
    strategy = report["strategy"]
    assert strategy["total"] == len(_strategy_ids()) and strategy["passed"] < strategy["total"]
    assert f"strategy {strategy['passed']}/{strategy['total']} scenarios" in report["summary"]
    assert report["summary"].startswith("PASS: 4/4 health checks, survival ")


def test_a_snake_that_does_not_hunt_exits_0_with_its_strategy_score(
    urls: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(["test", urls["plain"]], capsys)
    assert code == 0, err
    last = out.strip().splitlines()[-1]
    assert last.startswith("PASS: 4/4 health checks, survival ")
    assert "strategy 5/8 scenarios (40/64 positions)" in last
    assert "strategy: 5/8 scenarios" in out  # the score line under the table
    assert "MISS" in out and "FAIL" not in out  # missed kills are not failures
    # The missed kill is drawn, as a strategy position.
    assert "strategy head-to-head-win-edge [identity]" in out and "you (tested)" in out


def test_failures_under_parallel_load_are_replayed_alone(
    urls: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _cli(["test", urls["globals"], "--parallel", "4", "--json"], capsys)
    report = json.loads(out)
    # Games in flight together overwrite each other's board in the snake's global:
    # many positions fail among them, and every one passes when played alone.
    assert len(report["load_only"]) >= 5, report["summary"]
    assert code == 0 and report["passed"] and report["parallel"] == 4, report["summary"]
    variants = {(s["id"], v["variant"]): v for s in report["scenarios"] for v in s["variants"]}
    for item in report["load_only"]:
        variant = variants[(item["id"], item["variant"])]
        assert variant["passed"] and variant["failed_under_load"] == item["failed_under_load"]
        assert item["failed_under_load"].startswith("moved "), item
    survival_load_only = [i for i in report["load_only"] if i["id"] not in _strategy_ids()]
    assert survival_load_only, "the leak should hit survival positions too"
    assert (
        f"{len(report['load_only'])} positions failed only under load (--parallel 4)"
        in report["summary"]
    )
    assert any("passed when played alone" in n for n in report["notes"])
    counted = sum(s["variants_load_only"] for s in report["scenarios"])
    assert counted == len(report["load_only"])


def test_the_text_report_says_which_positions_failed_only_under_load(
    urls: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        ["test", urls["globals"], "--parallel", "4", "--only", "starving"], capsys
    )
    assert code == 0, err
    assert "failed only under load (passed alone)" in out
    summary = " ".join(out[out.rindex("PASS: ") :].split())  # the summary may wrap
    assert "positions failed only under load (--parallel 4), passed alone" in summary


def test_a_strict_snake_refuses_what_the_tester_no_longer_sends(urls: dict[str, str]) -> None:
    """The strict snake is strict: the old requests (source, /start turn) are refused."""
    scenario = SCENARIOS[0]
    old = scenario.request().to_api()
    old["game"]["source"] = "snakewar-test"
    refused = httpx.post(urls["strict"] + "/move", json=old, timeout=60)
    assert refused.status_code == 400 and "game.source" in refused.text
    late_start = scenario.request().to_api()
    assert late_start["turn"] == 40
    refused = httpx.post(urls["strict"] + "/start", json=late_start, timeout=60)
    assert refused.status_code == 400 and "turn" in refused.text
    assert httpx.post(
        urls["strict"] + "/start", json=scenario.start_request().to_api(), timeout=60
    ).is_success


def test_the_start_request_is_turn_0_of_the_same_game() -> None:
    for scenario in SCENARIOS:
        start: dict[str, Any] = scenario.start_request(300).to_api()
        move: dict[str, Any] = scenario.request(300).to_api()
        assert start["turn"] == 0 and move["turn"] == scenario.state.turn > 0
        assert start["game"] == move["game"] and start["game"]["source"] == "custom"
        assert start["board"]["width"] == move["board"]["width"]
        assert start["board"]["snakes"] == move["board"]["snakes"]
        assert start["you"] == move["you"]


def test_ruleset_specific_scenarios_run_when_asked_for(urls: dict[str, str]) -> None:
    import asyncio

    async def go(rulesets: list[str]) -> TesterReport:
        async with new_http_client() as http:
            client = make_client(urls["plain"], http, AMPLE_MS)
            return await run_tester(client, rulesets=rulesets)

    royale = asyncio.run(go(["royale"]))
    assert {r.scenario.ruleset for r in royale.scenarios} == {"standard", "royale"}
    assert "hazards" in {r.scenario.category for r in royale.scenarios}
    # The careful snake knows nothing of hazards: a deadly hazard is a survival failure.
    assert not royale.passed and royale.exit_code == 1
    others = [r for r in royale.scenarios if r.scenario.category != "hazards"]
    assert all(r.passed for r in others if r.scenario.survival)
    constrictor = asyncio.run(go(["constrictor"]))
    assert {r.scenario.ruleset for r in constrictor.scenarios} == {"standard"}
    assert any("no scenarios of their own for constrictor" in n for n in constrictor.notes)


def test_bad_ruleset_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["test", "builtin:random", "--ruleset", "chess"], capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "unknown ruleset 'chess'" in lines[0], err
