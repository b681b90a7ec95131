"""``snakewar bench compare``: reading the anchors' output, the ratios, and the command.

The real anchors (the Go harness of ``benchmarks/go``, the official ``halite`` binary)
are not built in CI, so stand-ins with the same interface play them here: a script
that prints the harness's JSON, and one that acts as the engine's process.  The path
without any anchor, which shows the recorded figures, runs as well.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from snakewar.cli.bench import Anchor, AnchorError, speed_ratio
from snakewar.games.battlesnake.cli.bench import (
    GO_HARNESS_ENV,
    GO_RECORDED_TURNS_PER_SECOND,
    parse_go_harness,
    run_go_harness,
)
from snakewar.games.halite3.cli.bench import HALITE_ENGINE_ENV, time_halite_engine

HARNESS_LINE = (
    '{"engine":"github.com/BattlesnakeOfficial/rules","go_version":"go1.19.8",'
    '"ruleset":"standard","map":"standard","width":11,"height":11,"snakes":4,"games":600,'
    '"workers":2,"turns":48580,"turns_per_second":52763.5,"per_worker":['
    '{"turns":24220,"engine_seconds":0.92,"move_seconds":0.21,"turns_per_second":26215.9},'
    '{"turns":24360,"engine_seconds":0.91,"move_seconds":0.17,"turns_per_second":26547.5}]}\n'
)


def script(path: Path, body: str) -> str:
    """Write an executable Python script; return its path."""
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


FAKE_HARNESS = """\
import json, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
workers = int(args["-workers"])
print(json.dumps({"go_version": "go0.0", "workers": workers, "turns": 100 * int(args["-games"]),
                  "turns_per_second": 1000.0 * workers}))
"""

FAKE_ENGINE = """\
import json, os, sys, time
assert "--no-replay" in sys.argv and "--results-as-json" in sys.argv, sys.argv
assert sum("halite bot" in a for a in sys.argv) == 4, sys.argv
end = time.process_time() + 0.05
while time.process_time() < end:  # burn CPU that wait4 must see
    pass
if "-c" in sys.argv:  # a constants file: every key, as the engine requires
    with open(sys.argv[sys.argv.index("-c") + 1]) as f:
        assert "INITIAL_ENERGY" in json.load(f)
scores = json.loads(os.environ.get("FAKE_SCORES", "[0, 0, 0, 0]"))
stats = {str(pid): {"rank": pid + 1, "score": score} for pid, score in enumerate(scores)}
print(json.dumps({"stats": stats, "map_width": int(sys.argv[sys.argv.index("--width") + 1])}))
"""


def test_parse_go_harness_reads_the_harness_line() -> None:
    result = parse_go_harness(HARNESS_LINE)
    assert result.turns == 48580 and result.workers == 2 and result.go_version == "go1.19.8"
    assert result.turns_per_second == pytest.approx(52763.5)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("turns/s: 5\n", id="not-json"),
        pytest.param('{"turns": 5, "workers": 1, "go_version": "x"}', id="no-rate"),
        pytest.param("[1, 2]", id="not-an-object"),
        pytest.param(
            '{"turns": 0, "turns_per_second": 0, "workers": 1, "go_version": "x"}', id="no-turns"
        ),
    ],
)
def test_parse_go_harness_refuses_anything_else(text: str) -> None:
    with pytest.raises(AnchorError):
        parse_go_harness(text)


def test_speed_ratio_is_above_one_when_snakewar_is_faster() -> None:
    assert speed_ratio(200.0, Anchor("Go", 100.0, True)) == pytest.approx(2.0)
    # Times: lower is better, so the ratio is the anchor's time over ours.
    assert speed_ratio(0.5, Anchor("C++", 0.25, True), lower_is_better=True) == pytest.approx(0.5)
    assert speed_ratio(200.0, Anchor("Go, 2 threads", None, False)) is None


def test_run_go_harness_passes_the_benchmark_and_reads_its_answer(tmp_path: Path) -> None:
    harness = script(tmp_path / "rulesbench", FAKE_HARNESS)
    result = run_go_harness(harness, games=7, seed=1, workers=2)
    assert result.turns == 700 and result.workers == 2 and result.turns_per_second == 2000.0


def test_run_go_harness_failures_are_anchor_errors(tmp_path: Path) -> None:
    failing = script(tmp_path / "failing", "import sys; sys.exit('error: no map')\n")
    with pytest.raises(AnchorError, match="no map"):
        run_go_harness(failing, games=1, seed=1)
    with pytest.raises(AnchorError, match="cannot run"):
        run_go_harness(str(tmp_path / "not-built"), games=1, seed=1)


def test_time_halite_engine_measures_the_engine_process_cpu(tmp_path: Path) -> None:
    engine = script(tmp_path / "halite", FAKE_ENGINE)
    timed = time_halite_engine(engine, 7, 32, ["random"] * 4, str(tmp_path))
    assert timed["cpu_s"] >= 0.04 and timed["wall_s"] >= timed["cpu_s"] * 0.5


def test_time_halite_engine_failures_are_anchor_errors(tmp_path: Path) -> None:
    silent = script(tmp_path / "silent", "print('no json')\n")
    with pytest.raises(AnchorError, match="no results JSON"):
        time_halite_engine(silent, 7, 32, ["random"] * 4, str(tmp_path))
    failing = script(tmp_path / "failing", "import sys; sys.exit(3)\n")
    with pytest.raises(AnchorError, match="exited with 3"):
        time_halite_engine(failing, 7, 32, ["random"] * 4, str(tmp_path))
    with pytest.raises(AnchorError, match="cannot run"):
        time_halite_engine(str(tmp_path / "not-built"), 7, 32, ["random"] * 4, str(tmp_path))


TINY = (
    "--games", "3", "--repeat", "2", "--sim-batches", "1,4", "--sim-seconds", "0.05",
    "--halite-size", "32", "--halite-bots", "random,random,random,random", "--crowd-ships", "4",
)  # fmt: skip

ROWS = (
    "rules engine, 1 process",
    "rules engine, 2 processes",
    "batched sim, best B=",
    "Halite III 32x32",
    "Halite III crowded, 32x32",
)


def compare(extra_env: dict[str, str]) -> dict[str, str]:
    """Run the command with tiny sizes; return its table's rows, by figure."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in (GO_HARNESS_ENV, HALITE_ENGINE_ENV)
    }
    env.update({"COLUMNS": "160", "PYTHONIOENCODING": "utf-8", **extra_env})
    done = subprocess.run(
        [sys.executable, "-m", "snakewar", "bench", "compare", *TINY],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"^machine: .+, \d+ CPUs, load [\d.]+ [\d.]+ [\d.]+", out, re.M), out
    assert re.search(r"^load after: [\d.]+ [\d.]+ [\d.]+$", out, re.M), out
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 4 and cells[0].startswith(ROWS):
            rows[cells[0]] = line
    assert len(rows) == 6, out
    return rows


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip("│ ").split("│")]


def number(text: str) -> float:
    found = re.search(r"\d[\d,]*(\.\d+)?", text)
    assert found, text
    return float(found.group().replace(",", ""))


def test_compare_without_anchors_shows_recorded_figures_labelled() -> None:
    rows = compare({})
    for line in rows.values():
        _, ours, anchor, ratio = cells(line)
        if anchor.endswith("not built here"):
            # No recorded figure exists for Go on 2 threads.
            assert anchor.startswith("Go, 2 threads") and ratio == "-"
            continue
        assert "(recorded" in anchor, line
        assert ratio.endswith("x") and number(ratio) > 0, line
        if "turns/s" in ours:
            assert f"{GO_RECORDED_TURNS_PER_SECOND:,.0f}" in anchor
            assert number(ratio) == pytest.approx(number(ours) / 78_196, rel=0.01)
        else:
            assert ("ms/turn" in ours or "us/ship-turn" in ours) and anchor.startswith("C++:")
            assert number(ratio) == pytest.approx(number(anchor) / number(ours), rel=0.01)


def test_compare_runs_the_anchors_it_is_given(tmp_path: Path) -> None:
    rows = compare(
        {
            GO_HARNESS_ENV: script(tmp_path / "rulesbench", FAKE_HARNESS),
            HALITE_ENGINE_ENV: script(tmp_path / "halite", FAKE_ENGINE),
        }
    )
    for line in rows.values():
        figure, ours, anchor, ratio = cells(line)
        assert "recorded" not in anchor and "not built" not in anchor, line
        if "turns/s" in ours:
            go = 2000.0 if "2 processes" in figure else 1000.0
            assert number(anchor.split(":")[1]) == go, line
            assert number(ratio) == pytest.approx(number(ours) / go, rel=0.01)
        else:
            assert anchor.startswith("C++, process CPU:") and number(anchor) > 0, line


def test_crowded_row_sets_the_same_game_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The official engine plays the crowd bots' game with the crowded constants; its
    # CPU time per ship-turn is the anchor, only if the final scores show the same game.
    from snakewar.games.halite3.cli.bench import _crowded_row, measure_halite_crowded

    engine = script(tmp_path / "halite", FAKE_ENGINE)
    scores = measure_halite_crowded(5, 32, 4, 4)["scores"]
    notes: list[str] = []
    monkeypatch.setenv("FAKE_SCORES", json.dumps(scores))
    figure, ours, anchor, ratio = _crowded_row(engine, 5, 32, 4, 1, notes)
    monkeypatch.delenv("FAKE_SCORES")
    assert figure.startswith("Halite III crowded, 32x32") and "us/ship-turn" in ours
    assert anchor.startswith("C++, process CPU:") and ratio is not None
    assert ratio == pytest.approx(number(anchor) / number(ours), rel=0.02)
    assert notes[-1].endswith("final scores equal on both engines")
    # Other scores: not the same game, so no ratio.
    _, _, _, ratio = _crowded_row(engine, 5, 32, 4, 1, notes)
    assert ratio is None and notes[-1].endswith("DIFFER: not the same game")


def test_compare_refuses_an_anchor_that_is_not_built_before_measuring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snakewar.cli import main

    missing = str(tmp_path / "rulesbench")
    assert main(["bench", "compare", "--go-harness", missing]) == 2
    out, err = capsys.readouterr()
    assert "machine:" not in out
    assert err.strip() == f"error: the Go harness {missing!r} is not an executable file"
